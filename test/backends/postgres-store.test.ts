/**
 * PostgresStore: the bot's store in tables of its own, and `store.durability()` on the same pool.
 */
import { describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../../src/core/errors/errors.js'
import type { MessageLogEntry } from '../../src/core/store/store.js'
import { MESSAGE_LOG_LIMITS } from '../../src/core/store/message-log-trims.js'
import { PostgresDurability, PostgresStore } from '../../src/backends/postgres/index.js'
import {
  adminQuery,
  dropTablePrefix,
  pgUrlWith,
  postgresAvailable,
  randomTablePrefix,
  tablesUnder,
  waitFor,
} from '../../test-utils/postgres.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const available = await postgresAvailable()

const logLine = (chatId: string, n: number): MessageLogEntry => ({
  direction: n % 2 === 0 ? 'in' : 'out',
  chatId,
  messageId: n % 3 === 0 ? null : `m${n}`,
  text: n === 4 ? null : `line ${n} 'quoted' \\ ü`,
  at: 1_000 + n,
  ref: n % 2 === 0 ? `inb:${n}` : null,
})

describe.runIf(available)('PostgresStore', () => {
  const cleanups = useCleanups()

  async function startedStore(
    options: { messageLogMax?: number } = {},
  ): Promise<{ store: PostgresStore; tablePrefix: string; applicationName: string }> {
    const tablePrefix = randomTablePrefix()
    const applicationName = `store_${tablePrefix}`
    const store = new PostgresStore({ connectionString: pgUrlWith({ application_name: applicationName }), tablePrefix, ...options })
    cleanups.push(() => dropTablePrefix(tablePrefix))
    await store.start()
    cleanups.push(() => store.stop())
    return { store, tablePrefix, applicationName }
  }

  it('keeps user data, checkpoints and the message log per scope and chat', async () => {
    const { store } = await startedStore()
    expect(await store.getUser('bot-a', 'chat', 'name')).toBeUndefined()
    await store.setUser('bot-a', 'chat', 'name', { first: 'Ana', tags: ['x', null, 1.5] })
    await store.setUser('bot-b', 'chat', 'name', 'other bot')
    await store.setUser('bot-a', 'chat', 'name', { first: 'Ana María' })
    expect(await store.getUser('bot-a', 'chat', 'name')).toEqual({ first: 'Ana María' })
    expect(await store.getUser('bot-b', 'chat', 'name')).toBe('other bot')
    await store.setUser('bot-a', 'chat', 'flag', false)
    expect(await store.getUser('bot-a', 'chat', 'flag')).toBe(false)

    expect(await store.getCheckpoint('bot-a', 'chat')).toBeUndefined()
    await store.setCheckpoint('bot-a', 'chat', { flow: 'signup', step: 1 })
    await store.setCheckpoint('bot-a', 'chat', { flow: 'signup', step: 2 })
    expect(await store.getCheckpoint('bot-a', 'chat')).toEqual({ flow: 'signup', step: 2 })
    expect(await store.getCheckpoint('bot-b', 'chat')).toBeUndefined()
    await store.deleteCheckpoint('bot-a', 'chat')
    expect(await store.getCheckpoint('bot-a', 'chat')).toBeUndefined()

    const lines = Array.from({ length: 7 }, (_, n) => logLine('chat', n))
    for (const line of lines) await store.appendLog('bot-a', line)
    await store.appendLog('bot-a', logLine('another chat', 99))
    await store.appendLog('bot-b', logLine('chat', 100))
    expect(await store.listLog('bot-a', 'chat', 3)).toEqual(lines.slice(-3))
    expect(await store.listLog('bot-a', 'chat', 100)).toEqual(lines)
    expect(await store.listLog('bot-b', 'chat', 100)).toEqual([logLine('chat', 100)])
    expect(await store.listLog('bot-a', 'nobody', 10)).toEqual([])
  })

  it('trims a chat’s log on its first append and then every MESSAGE_LOG_LIMITS.trimEvery: at most messageLogMax + trimEvery - 1 lines in the table, messageLogMax listed', async () => {
    const { store, tablePrefix } = await startedStore({ messageLogMax: 5 })
    const every = MESSAGE_LOG_LIMITS.trimEvery
    const linesInTable = async () =>
      (await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${tablePrefix}message_log" WHERE chat_id = 'chat'`)).rows[0]!.n
    let most = 0
    for (let n = 1; n <= 2 * every + 1; n++) {
      await store.appendLog('s', logLine('chat', n))
      most = Math.max(most, await linesInTable())
    }
    expect(most).toBe(5 + every - 1)
    expect(await linesInTable()).toBe(5)
    const newest = Array.from({ length: 5 }, (_, n) => logLine('chat', 2 * every - 3 + n))
    expect(await store.listLog('s', 'chat', 1_000)).toEqual(newest)
  })

  it('keeps every log line with messageLogMax 0, and refuses a messageLogMax that is not a whole number >= 0', async () => {
    const { store } = await startedStore({ messageLogMax: 0 })
    for (let n = 1; n <= 12; n++) await store.appendLog('s', logLine('chat', n))
    expect(await store.listLog('s', 'chat', 1_000)).toHaveLength(12)
    expect(() => new PostgresStore({ connectionString: pgUrlWith({}), messageLogMax: -1 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: 'messageLogMax must be a whole number >= 0, got -1' }),
    )
  })

  it('lives in tables of its own; the journal table appears only when its durability starts', async () => {
    const { store, tablePrefix } = await startedStore()
    await store.setUser('s', 'c', 'k', 1)
    await store.appendLog('s', logLine('c', 1))
    expect(await tablesUnder(tablePrefix)).toEqual([`${tablePrefix}checkpoints`, `${tablePrefix}message_log`, `${tablePrefix}users`])
    const durability = store.durability()
    expect(durability).toBeInstanceOf(PostgresDurability)
    expect(store.durability()).toBe(durability)
    await durability.start()
    cleanups.push(() => durability.stop())
    expect(await tablesUnder(tablePrefix)).toContain(`${tablePrefix}durable`)
    await store.setUser('s', 'c', 'k', 2)
    const { rows } = await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${tablePrefix}durable"`)
    expect(rows[0]!.n).toBe(0)
  })

  it('shares its pool with its durability: the pool ends when both have stopped', async () => {
    const { store, applicationName } = await startedStore()
    const durability = store.durability()
    await durability.start()
    expect(durability.kv.connection).toBe(store.connection)
    await store.stop()
    const [written] = await durability.kv.write([
      { op: 'put', collection: 'inbox', key: 'm1', expectVersion: 0, value: { id: 'm1' }, state: 'pending', stateTime: 1, due: 1 },
    ])
    expect(written).toEqual({ ok: true, version: 1 })
    expect(await adminCount(applicationName)).toBeGreaterThan(0)
    await durability.stop()
    await waitFor(async () => (await adminCount(applicationName)) === 0, 'the shared pool to end')
  })

  it('an unreachable server fails start with a retryable StoreUnavailableError', async () => {
    const store = new PostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test', tablePrefix: randomTablePrefix() })
    const error = await store.start().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(StoreUnavailableError)
    expect((error as StoreUnavailableError).retryable).toBe(true)
    expect((error as Error).message).toContain('127.0.0.1:1/test')
  })
})

async function adminCount(applicationName: string): Promise<number> {
  const { rows } = await adminQuery<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [
    applicationName,
  ])
  return Number(rows[0]!.n)
}
