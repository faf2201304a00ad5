// `botmesh demo` run again: an earlier demo's journal (and what an operator re-queued there) is never
// deleted unasked. Off a terminal the demo takes a fresh file and says which; on one it asks.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { botmesh, botmeshOnTerminal, jsonOf, useTempDirs } from './helpers.js'

const DEMO = ['demo', '--no-dashboard', '--crash-after', '1500']
const graceId = inboxRecordId('demo-channel', 'grace', 'demo.grace.9')

describe('botmesh demo, run again', () => {
  const tempDir = useTempDirs()

  it('keeps the earlier journal with what was re-queued there: off a terminal it journals to a fresh file and says which; on one it asks', async () => {
    const cwd = tempDir()
    const first = await botmesh(DEMO, { cwd, timeoutMs: 120_000 })
    expect(first.code, first.stderr).toBe(0)
    // The operator re-queues the dead letter the demo left.
    expect((await botmesh(['replay', graceId], { cwd })).code).toBe(0)
    const before = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', graceId, '--json'], { cwd }))
    expect(before[0]!.record.state).toBe('pending')

    const second = await botmesh(DEMO, { cwd, timeoutMs: 120_000 })
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toMatch(
      /\.\/data\/bot\.db holds an earlier demo's journal \(\d+ records\): kept as it is; this demo journals to \.\/data\/bot-2\.db/,
    )
    expect(existsSync(join(cwd, 'data', 'bot-2.db'))).toBe(true)
    // The hints name the file this demo used.
    expect(second.stdout).toContain('npx botmesh dlq list --backend sqlite:./data/bot-2.db')
    const kept = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', graceId, '--json'], { cwd }))
    expect(kept[0]!.record.state).toBe('pending')

    // On a terminal the demo asks; yes starts over on the file asked for, and no third file appears.
    const third = await botmeshOnTerminal(DEMO, { cwd, input: 'y\n', timeoutMs: 120_000 })
    expect(third.code, third.stdout).toBe(0)
    expect(third.stdout).toMatch(/\.\/data\/bot\.db holds an earlier demo's journal \(\d+ records\)\. Delete them and start over on it/)
    expect(third.stdout).not.toContain('kept as it is')
    expect(existsSync(join(cwd, 'data', 'bot-3.db'))).toBe(false)
    const again = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', graceId, '--json'], { cwd }))
    expect(again[0]!.record.state).toBe('dead')
  }, 360_000)
})
