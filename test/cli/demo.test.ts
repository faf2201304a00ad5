// `botmesh demo`, the newcomer's first command: the built binary, on the embedded default in a temp folder.
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

describe('botmesh demo', () => {
  const tempDir = useTempDirs()

  it('runs the demo bot on ./data/bot.db, crashes and restarts it, and leaves dead letters that dlq list, replay and retry work on', async () => {
    const cwd = tempDir()
    const run = await botmesh(['demo', '--no-dashboard', '--crash-after', '1500'], { cwd, timeoutMs: 120_000 })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('✖ crash: the bot process was killed with SIGKILL')
    expect(run.stdout).toContain('bot restarted')
    // Only what the restarted bot recognised as journaled before the crash is labelled a redelivery.
    const labelled = run.stdout.split('\n').filter((line) => line.includes('(redelivered by the channel')).length
    const recognised = Number(/redeliveries recognised (\d+)/.exec(run.stdout)?.[1])
    expect(labelled).toBe(recognised)
    expect(existsSync(join(cwd, 'data', 'bot.db'))).toBe(true)
    // The journal holds users' messages: its directory is the owner's only, as the README says.
    expect(statSync(join(cwd, 'data')).mode & 0o777).toBe(0o700)
    // Every hint names the backend the demo used, so it works as pasted.
    const hints = run.stdout
      .slice(run.stdout.indexOf('Try next:'))
      .split('\n')
      .filter((line) => line.startsWith('  npx botmesh'))
    expect(hints.length).toBeGreaterThanOrEqual(2)
    for (const hint of hints) expect(hint).toMatch(/ --backend sqlite:\.\/data\/bot\.db$/)

    const dlq = jsonOf<{ records: { kind: string; id: string }[] }>(await botmesh(['dlq', 'list', '--json'], { cwd }))
    // Inbox record ids are `<provider>:<chatId>:<event id>`; the demo's channel is a MockProvider named 'demo-channel'.
    const graceId = inboxRecordId('demo-channel', 'grace', 'demo.grace.9')
    const frankKey = `${inboxRecordId('demo-channel', 'frank', 'demo.frank.8')}:1`
    const ids = dlq.records.map((r) => `${r.kind}:${r.id}`).sort()
    // Frank's reply is dead-lettered (the channel refuses him), unless the SIGKILL landed while that
    // send was with the provider: then it is ambiguous, and onAmbiguous 'skip' marks it unknown.
    // Where the kill lands moves with the machine's load; both are the contract's outcomes.
    const frankAmbiguous = run.stdout.includes(`? ambiguous send ${frankKey}`)
    expect(ids).toEqual(frankAmbiguous ? [`inbox:${graceId}`] : [`inbox:${graceId}`, `outbox:${frankKey}`])
    const frank = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', frankKey, '--json'], { cwd }))
    expect(frank[0]!.record.state).toBe(frankAmbiguous ? 'unknown' : 'dead')

    const replay = await botmesh(['replay', graceId, '--yes'], { cwd })
    expect(replay.code, replay.stderr).toBe(0)
    const retry = await botmesh(['retry', frankKey, '--yes'], { cwd })
    expect(retry.code, retry.stderr).toBe(0)
    const after = jsonOf<{ records: unknown[] }>(await botmesh(['dlq', 'list', '--json'], { cwd }))
    expect(after.records).toEqual([])
  }, 180_000)

  it('refuses a backend that is not a SQLite file, touching nothing', async () => {
    const cwd = tempDir()
    const run = await botmesh(['demo', '--backend', 'redis://127.0.0.1:6379'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/SQLite file/)
    expect(existsSync(join(cwd, 'data'))).toBe(false)
  })
})
