/**
 * File journals: read-only while a live process holds them (a write command is refused with the
 * holder's pid and what to do instead), a damaged append log refused with file, line and byte
 * offset, `verify` reporting damage without changing a byte, `verify --salvage`, and `compact`
 * folding the log into the snapshot.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { appendFile, copyFile, readFile, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileDurability } from '../../src/backends/file/index.js'
import { SEED_SCOPE, seedJournal, seedWrites } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, ROOT, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

/** A journal left as a crash leaves it: every seed record its own line of the append log, no compaction yet. */
async function journalWithLog(): Promise<string> {
  const live = join(tempDir(), 'durable.json')
  const journal = await FileDurability.open(live, { appendLog: true })
  const scope = journal.journal(SEED_SCOPE)
  for (const write of seedWrites(Date.now())) await scope.write('operator.import', [write])
  const copy = join(tempDir(), 'durable.json')
  for (const suffix of ['', '.log']) await copyFile(live + suffix, copy + suffix).catch(() => {})
  await journal.close()
  return copy
}

/** Every file of a journal's directory, name → bytes. */
async function filesOf(path: string): Promise<Record<string, string>> {
  const dir = join(path, '..')
  const files: Record<string, string> = {}
  for (const name of await readdir(dir)) files[name] = (await readFile(join(dir, name))).toString('base64')
  return files
}

/** Damages a complete log line in the middle (its checksum no longer matches). */
async function damageLine(path: string, line: number): Promise<number> {
  const log = await readFile(`${path}.log`)
  let offset = 0
  for (let n = 1; n < line; n++) offset = log.indexOf(0x0a, offset) + 1
  const at = offset + 20
  log[at] = log[at] === 0x41 ? 0x42 : 0x41
  await writeFile(`${path}.log`, log)
  return offset
}

describe('a journal a live process holds', () => {
  let holder: ChildProcess | undefined
  afterEach(async () => {
    holder?.stdin?.end()
    await new Promise((resolve) => (holder && holder.exitCode === null ? holder.once('exit', resolve) : resolve(undefined)))
    holder = undefined
  })

  it('is read read-only; a write command is refused with the pid and what to do instead', async () => {
    const path = join(tempDir(), 'durable.json')
    await seedJournal(`file:${path}`)
    holder = spawn(process.execPath, ['--import', './test-utils/ts-loader.mjs', 'test/fixtures/cli/hold-file.ts', path], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.once('data', () => resolve())
      holder!.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)))
    })
    const url = `file:${path}`
    const before = await filesOf(path)
    const exported = await botmesh(['export', '--backend', url])
    expect(exported.code).toBe(0)
    const dlq = await botmesh(['dlq', 'list', '--json', '--backend', url])
    expect(dlq.code).toBe(0)
    expect(jsonOf<{ records: unknown[] }>(dlq).records).toHaveLength(5)
    const writes = [
      ['replay', 'in-dead-1', '--yes'],
      ['retry', '--all-dead', '--yes'],
      ['discard', 'out-dead-1', '--yes'],
      ['purge', '--older-than', '1d', '--yes'],
      ['compact'],
      ['import', '-'],
    ]
    const refusals = await Promise.all(writes.map((args) => botmesh([...args, '--backend', url], { input: exported.stdout })))
    for (const [index, refused] of refusals.entries()) {
      const name = writes[index]!.join(' ')
      expect(refused.code, name).toBe(2)
      expect(refused.stderr, name).toContain(`${path} is held by process ${holder.pid} (a running bot)`)
      expect(refused.stderr, name).toMatch(
        /Stop that process first, or make the change from inside it \(bot\.durability\.replayInbound.*\(JOURNAL_LOCKED\)/,
      )
    }
    const dry = await botmesh(['replay', '--all-dead', '--dry-run', '--backend', url])
    expect(dry.code).toBe(0)
    expect(await filesOf(path)).toEqual(before)
  })

  it('is free again once the process is gone', async () => {
    const path = join(tempDir(), 'durable.json')
    await seedJournal(`file:${path}`)
    const result = await botmesh(['replay', 'in-dead-1', '--yes', '--backend', `file:${path}`])
    expect(result.code).toBe(0)
    const shown = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', 'in-dead-1', '--json', '--backend', `file:${path}`]))
    expect(shown[0]!.record.state).toBe('pending')
  })
})

describe('damage', () => {
  it('a damaged log line is refused with file, line and byte offset, and nothing changes', async () => {
    const path = await journalWithLog()
    const offset = await damageLine(path, 4)
    const before = await filesOf(path)
    for (const args of [['stats'], ['replay', 'in-dead-1', '--yes'], ['export']]) {
      const result = await botmesh([...args, '--backend', `file:${path}`])
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stderr).toContain(`${path}.log: append log entry at line 4 (byte offset ${offset}) is damaged`)
      expect(result.stderr).toContain('(APPEND_LOG_CORRUPT)')
    }
    expect(await filesOf(path)).toEqual(before)
  })

  it('verify reports the damage (exit 1) without changing a byte; a sound journal verifies (exit 0)', async () => {
    const sound = await journalWithLog()
    const ok = await botmesh(['verify', '--backend', `file:${sound}`])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('no damage found')
    const path = await journalWithLog()
    const offset = await damageLine(path, 6)
    const before = await filesOf(path)
    const result = await botmesh(['verify', '--json', '--backend', `file:${path}`])
    expect(result.code).toBe(1)
    const report = jsonOf<{ ok: boolean; problems: string[]; report: { log: { damage: { line: number; offset: number } } } }>(result)
    expect(report.ok).toBe(false)
    expect(report.report.log.damage).toMatchObject({ line: 6, offset })
    expect(report.problems[0]).toContain(`${path}.log: damaged at line 6 (byte offset ${offset})`)
    expect(await filesOf(path)).toEqual(before)
    const human = await botmesh(['verify', '--backend', `file:${path}`])
    expect(human.stdout).toContain(`damaged at line 6 (byte offset ${offset})`)
  })

  it('verify calls a torn last line no damage and says the next open cuts it, changing nothing', async () => {
    const path = await journalWithLog()
    const size = (await stat(`${path}.log`)).size
    await appendFile(`${path}.log`, '{"seq":99,"len":120,"crc":')
    const before = await filesOf(path)
    const result = await botmesh(['verify', '--backend', `file:${path}`])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('no damage found')
    expect(result.stdout.replace(/\n/g, ' ')).toContain(
      `${path}.log: the last line is torn at byte offset ${size} (26 bytes of a write a crash cut short): not damage; the next open that writes cuts it`,
    )
    expect(jsonOf<{ notes: string[] }>(await botmesh(['verify', '--json', '--backend', `file:${path}`])).notes).toHaveLength(1)
    expect(await filesOf(path)).toEqual(before)
  })

  it('verify prints the code open() would refuse with beside file, line and byte offset', async () => {
    const logDamaged = await journalWithLog()
    const offset = await damageLine(logDamaged, 6)
    const log = await botmesh(['verify', '--backend', `file:${logDamaged}`])
    expect(log.code).toBe(1)
    expect(log.stdout).toContain(`${logDamaged}.log: damaged at line 6 (byte offset ${offset}) APPEND_LOG_CORRUPT:`)
    const json = jsonOf<{ report: { log: { damage: { code: string } } } }>(
      await botmesh(['verify', '--json', '--backend', `file:${logDamaged}`]),
    )
    expect(json.report.log.damage.code).toBe('APPEND_LOG_CORRUPT')
    const opened = await botmesh(['stats', '--backend', `file:${logDamaged}`])
    expect(opened.stderr).toContain('(APPEND_LOG_CORRUPT)')

    const snapshotDamaged = await journalWithLog()
    await botmesh(['compact', '--backend', `file:${snapshotDamaged}`])
    const snapshot = await readFile(snapshotDamaged)
    await writeFile(snapshotDamaged, snapshot.subarray(0, Math.floor(snapshot.length / 2)))
    const truncated = await botmesh(['verify', '--backend', `file:${snapshotDamaged}`])
    expect(truncated.code).toBe(1)
    expect(truncated.stdout).toContain(`${snapshotDamaged}: damaged at line`)
    expect(truncated.stdout).toMatch(/damaged at line \d+ \(byte offset \d+\) JOURNAL_CORRUPT:/)
    expect((await botmesh(['stats', '--backend', `file:${snapshotDamaged}`])).stderr).toContain('(JOURNAL_CORRUPT)')
  })

  it('verify --salvage writes what is readable into a new file and leaves the original untouched', async () => {
    const path = await journalWithLog()
    await damageLine(path, 10)
    const before = await filesOf(path)
    const out = join(tempDir(), 'rescued.json')
    const result = await botmesh(['verify', '--salvage', out, '--json', '--backend', `file:${path}`])
    expect(result.code).toBe(0)
    expect(jsonOf<{ entries: number; fromLog: number }>(result)).toMatchObject({ entries: 9, fromLog: 9 })
    expect(await filesOf(path)).toEqual(before)
    const rescued = jsonOf<{ scopes: { inbox: number; outbox: number }[] }>(await botmesh(['scopes', '--json', '--backend', `file:${out}`]))
    expect(rescued.scopes[0]).toMatchObject({ inbox: 8, outbox: 1 })
    const again = await botmesh(['verify', '--salvage', out, '--backend', `file:${path}`])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('exists; give a new file')
  })

  it('a 0-byte file or a directory is not a journal', async () => {
    const dir = tempDir()
    await writeFile(join(dir, 'empty.json'), '')
    for (const [name, message] of [
      ['empty.json', /is empty \(0 bytes\)/],
      ['.', /is a directory/],
    ] as const) {
      const result = await botmesh(['dlq', 'list', '--backend', `file:${join(dir, name)}`])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(message)
    }
    const verify = await botmesh(['verify', '--backend', `file:${join(dir, 'empty.json')}`])
    expect(verify.code).toBe(1)
    expect(verify.stdout).toContain('is empty (0 bytes)')
  })
})

describe('compact', () => {
  it('folds the append log into the snapshot; the records stay the same', async () => {
    const path = await journalWithLog()
    const exported = await botmesh(['export', '--backend', `file:${path}`])
    const result = await botmesh(['compact', '--json', '--backend', `file:${path}`])
    expect(result.code).toBe(0)
    expect(jsonOf<{ kind: string; folded: number; bytesFreed: number }>(result)).toMatchObject({ kind: 'file', folded: 18 })
    expect((await readFile(`${path}.log`).catch(() => Buffer.alloc(0))).length).toBe(0)
    const again = await botmesh(['export', '--backend', `file:${path}`])
    expect(again.stdout.split('\n').slice(1)).toEqual(exported.stdout.split('\n').slice(1))
  })

  it('checkpoints a SQLite WAL; a server backend has nothing to compact', async () => {
    const url = `sqlite:${join(tempDir(), 'bot.db')}`
    await seedJournal(url)
    const result = await botmesh(['compact', '--json', '--backend', url])
    expect(result.code).toBe(0)
    expect(jsonOf<{ kind: string; report: { complete: boolean; walBytesAfter: number } }>(result)).toMatchObject({
      kind: 'sqlite',
      report: { complete: true, walBytesAfter: 0 },
    })
    const redis = await botmesh(['compact', '--backend', 'redis://127.0.0.1:6379'])
    expect(redis.code).toBe(2)
    expect(redis.stderr).toMatch(/redis:\/\/127.0.0.1:6379 is redis, which reclaims space on its own .*\(NOT_APPLICABLE\)/)
  })
})
