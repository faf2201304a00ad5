/**
 * Every backend refuses an option it does not read, naming it (and where a misplaced one belongs),
 * before it touches a file or a server: `FileDurability.open(p, { compactEvery: 2 })` used to run
 * in snapshot mode in silence.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FileEventJournal, SharedFileEventJournal } from '../../src/events/index.js'
import { eventsDurability } from '../../src/backends/events/durability.js'
import { FileDurability } from '../../src/backends/file/index.js'
import { PostgresDurability, PostgresStore } from '../../src/backends/postgres/index.js'
import { RedisDurability, RedisStore } from '../../src/backends/redis/index.js'
import { SQLiteDurability, SQLiteStore } from '../../src/backends/sqlite/index.js'
import { ConfigError, UnknownOptionError } from '../../src/core/errors/errors.js'
import { refuseUnknownOptions } from '../../src/core/options/options.js'
import { PG_URL, randomTablePrefix } from '../../test-utils/postgres.js'

const dirs: string[] = []
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-options-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Runs `open`, expecting an `UnknownOptionError` that names `option`; returns its message. */
async function refusal(open: () => unknown, option: string): Promise<string> {
  let caught: unknown
  try {
    await open()
  } catch (error) {
    caught = error
  }
  expect(caught, `expected ${option} to be refused`).toBeInstanceOf(UnknownOptionError)
  const error = caught as UnknownOptionError
  expect(error).toBeInstanceOf(ConfigError)
  expect(error.code).toBe('CONFIG_INVALID')
  expect(error.options).toContain(option)
  expect(error.message).toContain(`"${option}"`)
  return error.message
}

describe('file journals', () => {
  it('FileDurability.open refuses compactEvery beside appendLog, says where it belongs, and creates nothing', async () => {
    const dir = await tempDir()
    const path = join(dir, 'durable.json')
    const message = await refusal(() => FileDurability.open(path, { compactEvery: 2 } as never), 'compactEvery')
    expect(message).toContain('appendLog: { compactEvery }')
    expect(await readdir(dir)).toEqual([])
  })

  it('FileDurability.open refuses a misspelt option inside appendLog', async () => {
    const path = join(await tempDir(), 'durable.json')
    const message = await refusal(() => FileDurability.open(path, { appendLog: { compactEvry: 2 } } as never), 'compactEvry')
    expect(message).toMatch(/appendLog.*compactEvery, compactBytes, fsync/)
    expect(existsSync(path)).toBe(false)
  })

  it('FileDurability.open still takes every documented option', async () => {
    const path = join(await tempDir(), 'durable.json')
    const durability = await FileDurability.open(path, { appendLog: { compactEvery: 2, compactBytes: 1024, fsync: false }, fsync: true })
    await durability.close()
  })

  it('FileEventJournal.open refuses appendLog (only the shared journal has it) and a typo', async () => {
    const path = join(await tempDir(), 'events.json')
    expect(await refusal(() => FileEventJournal.open(path, { appendLog: true } as never), 'appendLog')).toContain('SharedFileEventJournal')
    await refusal(() => FileEventJournal.open(path, { locked: true } as never), 'locked')
  })

  it('SharedFileEventJournal.open refuses compactEvery beside appendLog, and lock', async () => {
    const path = join(await tempDir(), 'events.json')
    expect(await refusal(() => SharedFileEventJournal.open(path, { compactEvery: 5 } as never), 'compactEvery')).toContain(
      'appendLog: { compactEvery }',
    )
    await refusal(() => SharedFileEventJournal.open(path, { lock: true } as never), 'lock')
    await refusal(() => SharedFileEventJournal.open(path, { appendLog: { compactEvry: 5 } } as never), 'compactEvry')
  })

  it('eventsDurability refuses a path instead of a journal', async () => {
    const path = join(await tempDir(), 'events.json')
    const journal = await FileEventJournal.open(path, { lock: true })
    try {
      await refusal(() => eventsDurability({ journal, path } as never), 'path')
    } finally {
      await journal.close()
    }
  })
})

describe('database backends', () => {
  it('SQLiteDurability and SQLiteStore refuse path (for file) and creates no file', async () => {
    const dir = await tempDir()
    const file = join(dir, 'bot.db')
    expect(await refusal(() => new SQLiteDurability({ file, path: file } as never), 'path')).toContain('file')
    await refusal(() => new SQLiteDurability({ file, messageLogMax: 5 } as never), 'messageLogMax')
    await refusal(() => new SQLiteStore({ file, busyTimeout: 5 } as never), 'busyTimeout')
    expect(await readdir(dir)).toEqual([])
  })

  it('RedisDurability and RedisStore refuse tablePrefix and keyPrefix', async () => {
    const url = 'redis://127.0.0.1:6379'
    expect(await refusal(() => new RedisDurability({ url, tablePrefix: 'x' } as never), 'tablePrefix')).toContain('prefix')
    expect(await refusal(() => new RedisStore({ url, keyPrefix: 'x' } as never), 'keyPrefix')).toContain('prefix')
  })

  it('PostgresDurability and PostgresStore refuse prefix (for tablePrefix) and a misspelt timeout', async () => {
    const prefix = randomTablePrefix()
    expect(await refusal(() => new PostgresDurability({ connectionString: PG_URL, prefix } as never), 'prefix')).toContain('tablePrefix')
    await refusal(
      () => new PostgresStore({ connectionString: PG_URL, tablePrefix: prefix, statementTimeout: 5 } as never),
      'statementTimeout',
    )
  })

  it('names every unknown option at once, with what is taken', () => {
    expect(() => refuseUnknownOptions('Thing', { a: 1, b: 2, c: 3 }, ['a'])).toThrow('Thing: unknown options "b", "c"; it takes a')
    expect(() => refuseUnknownOptions('Thing', 5, ['a'])).toThrow('Thing: options must be an object, got number')
  })
})
