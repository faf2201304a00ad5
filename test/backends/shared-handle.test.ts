import { describe, expect, it } from 'vitest'
import { SharedHandle } from '../../src/backends/common/shared-handle.js'

/** An open that resolves when the test says so, counting what was opened and closed. */
function controlledOpen() {
  const log: string[] = []
  let finish!: () => void
  const open = () =>
    new Promise<string>((resolve) => {
      log.push('open')
      finish = () => resolve('value')
    })
  const close = async (value: string) => {
    log.push(`close ${value}`)
  }
  return { log, open, close, finish: () => finish() }
}

describe('SharedHandle, the counted start/stop of the backends', () => {
  it('opens on the first acquire and closes on the last release', async () => {
    const { log, open, close, finish } = controlledOpen()
    const handle = new SharedHandle<string>(undefined)
    const first = handle.acquire(open)
    const second = handle.acquire(open)
    finish()
    await Promise.all([first, second])
    expect(handle.value).toBe('value')
    await handle.release(close)
    expect(log).toEqual(['open'])
    await handle.release(close)
    await handle.release(close)
    expect(log).toEqual(['open', 'close value'])
    expect(handle.users).toBe(0)
  })

  it('closes a value whose last share was given back while it was opening', async () => {
    const { log, open, close, finish } = controlledOpen()
    const handle = new SharedHandle<string>(undefined)
    const acquired = handle.acquire(open)
    const released = handle.release(close)
    finish()
    await Promise.all([acquired, released])
    expect(log).toEqual(['open', 'close value'])
    expect(handle.value).toBeUndefined()
  })

  it('takes no share when the open fails, and opens again on the next acquire', async () => {
    const handle = new SharedHandle<string>(undefined)
    await expect(handle.acquire(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused')
    expect(handle.users).toBe(0)
    await handle.acquire(async () => 'again')
    expect(handle.value).toBe('again')
  })

  it('never opens or closes a value the caller injected', async () => {
    const handle = new SharedHandle<string>('injected')
    await handle.acquire(() => Promise.reject(new Error('not called')))
    await handle.release(() => Promise.reject(new Error('not called')))
    expect(handle.value).toBe('injected')
  })
})
