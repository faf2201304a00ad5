/**
 * PostgresDurability when the server misbehaves: connections terminated by the server
 * (`pg_terminate_backend`) while idle and while writing, an injected pool (never ended, left
 * alone), a closed port and a server that never answers.
 */
import { createServer, type Server, type Socket } from 'node:net'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { BotmeshError, JournalUnavailableError } from '../../src/core/errors/errors.js'
import type { KvOp } from '../../src/core/durability/journal/kv.js'
import { PostgresDurability, type PostgresLogger } from '../../src/backends/postgres/index.js'
import {
  PG_URL,
  adminQuery,
  dropTablePrefix,
  pgUrlWith,
  postgresAvailable,
  randomTablePrefix,
  testPool,
  waitFor,
} from '../../test-utils/postgres.js'
import { useCleanups } from '../../test-utils/lifecycle.js'

const available = await postgresAvailable()

const insert = (key: string): KvOp => ({
  op: 'put',
  collection: 'inbox',
  key,
  expectVersion: 0,
  value: { id: key },
  state: 'pending',
  stateTime: 1,
  due: 1,
})

/** A logger that keeps what it is told. */
function recordingLogger(): PostgresLogger & { errors: { message: string; details: unknown[] }[] } {
  const errors: { message: string; details: unknown[] }[] = []
  return { errors, error: (message, ...details) => void errors.push({ message, details }) }
}

/** Backends of one application name, as the server sees them. */
async function connectionsOf(applicationName: string): Promise<number> {
  const { rows } = await adminQuery<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [
    applicationName,
  ])
  return Number(rows[0]!.n)
}

/** Terminates every connection of one application name; resolves to how many. */
async function terminateAll(applicationName: string): Promise<number> {
  const { rows } = await adminQuery<{ terminated: boolean }>(
    'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1',
    [applicationName],
  )
  return rows.filter((row) => row.terminated).length
}

describe.runIf(available)('PostgresDurability faults', () => {
  const cleanups = useCleanups()

  it('connections terminated by the server mid-run: idle ones are reported and replaced, nothing acknowledged is lost', async () => {
    const tablePrefix = randomTablePrefix()
    const applicationName = `fault_${tablePrefix}`
    const logger = recordingLogger()
    const backend = new PostgresDurability({
      connectionString: pgUrlWith({ application_name: applicationName }),
      tablePrefix,
      logger,
      poolMax: 4,
    })
    cleanups.push(() => dropTablePrefix(tablePrefix))
    await backend.start()
    cleanups.push(() => backend.stop())
    const kv = backend.kv.scope('bot')
    const acknowledged: string[] = []
    const failures: unknown[] = []
    const writeAll = async (keys: string[]) => {
      await Promise.all(
        keys.map(async (key) => {
          try {
            const [result] = await kv.write([insert(key)])
            if (result!.ok) acknowledged.push(key)
          } catch (error) {
            failures.push(error)
          }
        }),
      )
    }

    // Phase 1: the pool's connections are idle when the server drops them.
    await writeAll(Array.from({ length: 8 }, (_, n) => `before-${n}`))
    expect(failures).toEqual([])
    const terminated = await terminateAll(applicationName)
    expect(terminated).toBeGreaterThan(0)
    await waitFor(() => logger.errors.length === terminated, `${terminated} idle connection errors reported to logger.error`)
    expect(logger.errors[0]!.message).toMatch(/closed while idle/)
    const [next] = await kv.write([insert('right-after')])
    expect(next).toEqual({ ok: true, version: 1 })
    acknowledged.push('right-after')

    // Phase 2: the server drops them while writes are in flight.
    let stop = false
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let n = 0; !stop || n < 5; n++) await writeAll([`during-${writer}-${n}`])
    })
    try {
      await waitFor(() => acknowledged.length >= 40, 'writes to be under way')
      await terminateAll(applicationName)
      const afterTermination = acknowledged.length
      await waitFor(() => acknowledged.length >= afterTermination + 20, 'writes to go on after the termination')
    } finally {
      stop = true
      await Promise.all(writers)
    }

    console.log(
      `pg_terminate_backend fault: ${terminated} idle connections terminated -> ${terminated} logger.error calls; ` +
        `mid-write termination: ${failures.length} writes rejected (retryable), ${acknowledged.length} acknowledged, all read back`,
    )
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(JournalUnavailableError)
      expect((failure as JournalUnavailableError).retryable).toBe(true)
    }
    const stored = await kv.get('inbox', acknowledged)
    const missing = acknowledged.filter((_, n) => stored[n]?.version !== 1)
    expect(missing).toEqual([])
    expect((await kv.count('inbox')).pending).toBeGreaterThanOrEqual(acknowledged.length)
  })

  it('stop ends the pool it created: no connection of it is left on the server', async () => {
    const tablePrefix = randomTablePrefix()
    const applicationName = `own_${tablePrefix}`
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const backend = new PostgresDurability({ connectionString: pgUrlWith({ application_name: applicationName }), tablePrefix })
    await backend.start()
    await backend.kv.write([insert('a')])
    expect(await connectionsOf(applicationName)).toBeGreaterThan(0)
    await backend.stop()
    await waitFor(async () => (await connectionsOf(applicationName)) === 0, 'the pool to close its connections')
  })

  it('an injected pool is never ended and gets no listener', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const pool = testPool()
    cleanups.push(() => pool.end())
    const listeners = pool.listenerCount('error')
    const backend = new PostgresDurability({ pool, tablePrefix })
    await backend.start()
    await backend.start()
    await backend.kv.write([insert('a')])
    await backend.stop()
    await backend.stop()
    expect(pool.ending).toBe(false)
    expect(pool.listenerCount('error')).toBe(listeners)
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${backend.kv.tables.durable} WHERE collection = 'inbox'`)
    expect(rows[0].n).toBe(1)
    // Started again on the same pool, it works again.
    await backend.start()
    expect((await backend.kv.get('inbox', ['a']))[0]?.version).toBe(1)
    await backend.stop()
    expect(pool.ending).toBe(false)
  })

  it('an unreachable server (a closed port) fails start with a retryable error that names it, without the password', async () => {
    const port = await closedPort()
    const backend = new PostgresDurability({
      connectionString: `postgres://postgres:s3cret@127.0.0.1:${port}/test`,
      tablePrefix: randomTablePrefix(),
    })
    const error = await backend.start().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(JournalUnavailableError)
    expect((error as JournalUnavailableError).code).toBe('JOURNAL_UNAVAILABLE')
    expect((error as JournalUnavailableError).retryable).toBe(true)
    expect((error as Error).message).toContain(`127.0.0.1:${port}/test`)
    expect((error as Error).message).toMatch(/ECONNREFUSED/)
    expect((error as Error).message).not.toContain('s3cret')
    await backend.stop()
  })

  it('a server that accepts but never answers fails start once the connect timeout passes', async () => {
    const silent = await silentServer()
    cleanups.push(() => silent.close())
    const backend = new PostgresDurability({
      connectionString: `postgres://postgres@127.0.0.1:${silent.port}/test`,
      tablePrefix: randomTablePrefix(),
      connectTimeoutMs: 300,
    })
    const error = await backend.start().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(JournalUnavailableError)
    expect((error as Error).message).toContain(`127.0.0.1:${silent.port}`)
    expect((error as Error).message).toMatch(/timeout/i)
  })

  it('a statement that runs past statementTimeoutMs is cancelled by the server with a retryable error, and the pool goes on', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const backend = new PostgresDurability({ connectionString: PG_URL, tablePrefix, statementTimeoutMs: 200 })
    await backend.start()
    cleanups.push(() => backend.stop())
    await backend.kv.write([insert('held')])
    const holder = await adminConnection()
    cleanups.push(() => holder.end())
    await holder.query('BEGIN')
    await holder.query(`SELECT FROM ${backend.kv.tables.durable} WHERE key = 'held' FOR UPDATE`)
    const error = await backend.kv.write([{ ...insert('held'), expectVersion: 1 } as KvOp]).then(
      () => undefined,
      (failure: unknown) => failure,
    )
    await holder.query('ROLLBACK')
    expect(error).toBeInstanceOf(JournalUnavailableError)
    expect((error as JournalUnavailableError).retryable).toBe(true)
    expect((error as Error).message).toMatch(/statement timeout/)
    expect((error as Error).message).toMatch(/ran longer than statementTimeoutMs \(200 ms\)/)
    const [retried] = await backend.kv.write([{ ...insert('held'), expectVersion: 1 } as KvOp])
    expect(retried).toEqual({ ok: true, version: 2 })
  })

  it('statementTimeoutMs: 1 fails start saying a statement ran past it, whatever reason the server gives', async () => {
    const tablePrefix = randomTablePrefix()
    cleanups.push(() => dropTablePrefix(tablePrefix))
    const backend = new PostgresDurability({ connectionString: PG_URL, tablePrefix, statementTimeoutMs: 1, logger: recordingLogger() })
    const error = await backend.start().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    cleanups.push(() => backend.stop())
    expect(error).toBeInstanceOf(JournalUnavailableError)
    expect((error as Error).message).toMatch(/canceled a statement: it ran longer than statementTimeoutMs \(1 ms\)/)
    expect((error as Error).message).not.toMatch(/is unavailable/)
  })

  it('a backend that is not started refuses to query, saying so', async () => {
    const backend = new PostgresDurability({ connectionString: PG_URL, tablePrefix: randomTablePrefix() })
    const error = await backend.kv.count('inbox').then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(BotmeshError)
    expect((error as BotmeshError).code).toBe('BACKEND_NOT_STARTED')
  })
})

/** A connection of the test's own, outside any backend's pool. */
async function adminConnection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: PG_URL })
  client.on('error', () => {})
  await client.connect()
  return client
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A TCP server that accepts connections and never says a word, like a hung PostgreSQL. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
