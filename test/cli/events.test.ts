/**
 * The CLI on @botmesh/events journals: `events:` (a FileEventJournal a bot holds with its pid
 * lock: read through a view while the bot runs, writes refused with its pid) and `events+shared:`
 * (a SharedFileEventJournal: worked on beside running processes), and the suites on bare names.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, ROOT, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

type Page = { records: { kind: string; id: string }[] }

describe.concurrent('events journals', () => {
  it.each(['events', 'events+shared'])('%s: list, show, replay, retry, export', async (scheme) => {
    const url = `${scheme}:${join(tempDir(), 'events.json')}`
    await seedJournal(url)
    const dlq = jsonOf<Page>(await botmesh(['dlq', 'list', '--json', '--backend', url]))
    expect(dlq.records.map((r) => r.id)).toEqual(['in-dead-1', 'in-dead-2', 'in-dead-3', 'out-dead-1', 'out-dead-2'])
    expect((await botmesh(['replay', 'in-dead-1', '--yes', '--backend', url])).code).toBe(0)
    expect((await botmesh(['retry', '--all-dead', '--yes', '--backend', url])).code).toBe(0)
    const stats = jsonOf<{ dead: { inbox: number; outbox: number } }>(await botmesh(['stats', '--json', '--backend', url]))
    expect(stats.dead).toEqual({ inbox: 2, outbox: 0 })
    const exported = await botmesh(['export', '--backend', url])
    expect(exported.stdout.trim().split('\n')).toHaveLength(18)
    const verify = await botmesh(['verify', '--backend', url])
    expect(verify.code).toBe(0)
  })
})

// One suite at a time: the engine cases hold leases of 80 ms, which a machine loaded by parallel suites can stall past.
describe('conformance on the events journals', () => {
  it.each(['events', 'events-shared'])('conformance --backend %s', async (name) => {
    const result = await botmesh(['conformance', '--json', '--backend', name])
    const report = jsonOf<{ failed: number; results: { ok: boolean }[] }>(result)
    expect(report.failed, JSON.stringify(report.results.filter((r) => !r.ok))).toBe(0)
    expect(result.code, result.stderr).toBe(0)
  })
})

describe('an events journal a live process holds', () => {
  let holder: ChildProcess | undefined
  afterEach(async () => {
    holder?.stdin?.end()
    await new Promise((resolve) => (holder && holder.exitCode === null ? holder.once('exit', resolve) : resolve(undefined)))
  })

  it('is read through a view; a write is refused with the pid', async () => {
    const path = join(tempDir(), 'events.json')
    await seedJournal(`events:${path}`)
    holder = spawn(process.execPath, ['--import', './test-utils/ts-loader.mjs', 'test/fixtures/cli/hold-file.ts', path, 'events'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.once('data', () => resolve())
      holder!.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)))
    })
    const [dlq, replay] = await Promise.all([
      botmesh(['dlq', 'list', '--json', '--backend', `events:${path}`]),
      botmesh(['replay', 'in-dead-1', '--yes', '--backend', `events:${path}`]),
    ])
    expect(dlq.code).toBe(0)
    expect(jsonOf<Page>(dlq).records).toHaveLength(5)
    expect(replay.code).toBe(2)
    expect(replay.stderr).toContain(`${path} is held by process ${holder.pid} (a running bot)`)
  })
})
