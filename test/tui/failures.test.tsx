/**
 * What the dashboard does when the backend fails, on real backends: a server that goes away
 * (PostgreSQL and Redis behind a TCP proxy that is taken down and brought back) is shown with the
 * next try and the last data kept, and picked up again without a restart; a SQLite journal that
 * does not exist yet is waited for; a file journal a running bot holds is read, and a change to it
 * is refused with who holds it. Never a crash.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openBackend, parseBackendUrl } from '../../src/operator/gateway/open.js'
import { BotmeshError, DriverMissingError } from '../../src/core/errors/errors.js'
import { connect } from '../../src/operator/dashboard-connection.js'
import { runDashboard } from '../../src/tui/index.js'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable } from '../../test-utils/redis.js'
import { Redis } from 'ioredis'
import { SCOPE, seedJournal } from '../fixtures/tui/seed.js'
import { mountDashboard, readRecord, useTempDirs, KEYS } from './helpers.js'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js'

const tempDir = useTempDirs()
const ROOT = join(import.meta.dirname, '..', '..')
const pgAvailable = await postgresAvailable()
const redisUp = await redisAvailable('the dashboard on Redis')

const failing = (f: string) => /^✖ /.test(f) && /✖ refresh failed( \d+×)?, retry/.test(f)
const healthy = (f: string) => /^● /.test(f) && !f.includes('refresh failed')

/** Takes the server away behind the proxy, checks the dashboard says so and keeps the data, gives it back. */
async function serverGoesAwayAndComesBack(url: string, proxy: TcpProxy): Promise<void> {
  const dashboard = mountDashboard(url, { refreshMs: 200 })
  await dashboard.until((f) => f.includes('in-dead-1') && healthy(f), 'the first refresh', 20_000)
  await proxy.down()
  const frame = await dashboard.until(failing, 'the failure shown', 30_000)
  expect(frame).toMatch(/showing what was read at \d\d:\d\d:\d\d|retry(ing| in)/)
  expect(frame).toContain('in-dead-1')
  expect(frame).toMatch(/^inbox\s+pending 1 {2}processing 2/m)
  await proxy.up()
  await dashboard.until(healthy, 'the backend picked up again', 30_000)
  dashboard.press('r', KEYS.enter)
  await dashboard.until((f) => f.includes('✔ replayed 1 of 1: in-dead-1'), 'a change after the reconnection', 20_000)
  expect(await readRecord(url, 'inbox', 'in-dead-1')).toMatchObject({ state: 'pending' })
  await dashboard.close()
}

describe.runIf(pgAvailable)('PostgreSQL down and back', () => {
  const prefixes: string[] = []
  const proxies: TcpProxy[] = []
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close()
    for (const prefix of prefixes) await dropTablePrefix(prefix)
  })

  it('shows the failure, keeps the last data, retries, and picks the server up again', async () => {
    const prefix = randomTablePrefix()
    prefixes.push(prefix)
    const direct = new URL(PG_URL)
    direct.searchParams.set('tablePrefix', prefix)
    await seedJournal(direct.toString())
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    proxies.push(proxy)
    const viaProxy = new URL(direct)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    await serverGoesAwayAndComesBack(viaProxy.toString(), proxy)
  })
})

describe.runIf(pgAvailable)('PostgreSQL down from the start', () => {
  const proxies: TcpProxy[] = []
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close()
  })

  it('at 80 columns, says the figures are unknown, since when, and keeps the cause on the line', async () => {
    const direct = new URL(PG_URL)
    direct.searchParams.set('tablePrefix', randomTablePrefix())
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    proxies.push(proxy)
    await proxy.down()
    const viaProxy = new URL(direct)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const dashboard = mountDashboard(viaProxy.toString(), { refreshMs: 200 })
    const frame = await dashboard.until(failing, 'the failure shown', 30_000)
    const [, message] = frame.split('\n')
    expect(message).toMatch(/^✖ refresh failed.*: .*ECONNREFUSED/)
    expect(frame).toMatch(/Instances +unknown since \d\d:\d\d:\d\d/)
    expect(frame).not.toContain('no heartbeat')
    expect(frame).not.toMatch(/Inbox dead letters +(0|none)\b/)
    await dashboard.close()
  })
})

describe.runIf(redisUp)('Redis down and back', () => {
  const prefixes: string[] = []
  const proxies: TcpProxy[] = []
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close()
    const client = new Redis(REDIS_URL)
    for (const prefix of prefixes) await deletePrefix(client, prefix)
    client.disconnect()
  })

  it('shows the failure, keeps the last data, retries, and picks the server up again', async () => {
    const prefix = randomPrefix()
    prefixes.push(prefix)
    const direct = new URL(REDIS_URL)
    direct.searchParams.set('prefix', prefix)
    await seedJournal(direct.toString())
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 6379) })
    proxies.push(proxy)
    const viaProxy = new URL(direct)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    await serverGoesAwayAndComesBack(viaProxy.toString(), proxy)
  })
})

describe('the failure as the message line says it', () => {
  it('leads with the root cause and its code, keeps what a wrapper adds beyond it, names no password', () => {
    const target = parseBackendUrl('postgres://ops:s3cret@db.internal:5432/bots')
    const connection = connect(target)
    const wrapped = new BotmeshError(
      'BACKEND_OPEN_FAILED',
      `cannot open ${target.label}: PostgreSQL at db.internal:5432/bots is unavailable: connect ECONNREFUSED 10.0.0.1:5432`,
      { cause: new Error('connect ECONNREFUSED 10.0.0.1:5432') },
    )
    // The wrapper only repeats the backend the status line names: the cause alone, with the code.
    expect(connection.describe(wrapped)).toBe('connect ECONNREFUSED 10.0.0.1:5432 (BACKEND_OPEN_FAILED)')
    const missing = new DriverMissingError('pg', 'PostgreSQL', new Error("Cannot find package 'pg'"))
    const said = connection.describe(missing)
    expect(said).toMatch(/^Cannot find package 'pg' \(DRIVER_MISSING\) · .*run npm install pg/)
    expect(said + connection.describe(wrapped)).not.toContain('s3cret')
  })
})

describe('local journals', () => {
  it('waits for a SQLite journal that does not exist yet, then shows it', async () => {
    const url = `sqlite:${join(tempDir(), 'later.db')}`
    const dashboard = mountDashboard(url, { refreshMs: 100 })
    dashboard.resize(200, 30)
    const frame = await dashboard.until((f) => failing(f) && f.includes('does not exist'), 'the missing journal reported')
    expect(frame).toContain('JOURNAL_MISSING')
    await seedJournal(url)
    await dashboard.until((f) => healthy(f) && f.includes('in-dead-1'), 'the journal once it exists', 20_000)
  })

  it('runDashboard refuses a bad URL, a refresh too fast and a stream that is not a terminal, before the screen changes', async () => {
    const tty = { isTTY: true } as unknown as NodeJS.ReadStream & NodeJS.WriteStream
    await expect(runDashboard({ backendUrl: 'nope://x', stdin: tty, stdout: tty })).rejects.toMatchObject({
      code: 'BACKEND_SCHEME_UNKNOWN',
    })
    await expect(runDashboard({ backendUrl: 'memory', refreshMs: 10, stdin: tty, stdout: tty })).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining('at least 100ms'),
    })
    const pipe = { isTTY: false } as unknown as NodeJS.ReadStream & NodeJS.WriteStream
    await expect(runDashboard({ backendUrl: 'memory', stdin: pipe, stdout: tty })).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining('needs a terminal'),
    })
  })

  it('a bare throwaway name shows an empty journal in the default scope', async () => {
    const dashboard = mountDashboard('memory', { refreshMs: 100, scope: undefined })
    const frame = await dashboard.until((f) => healthy(f) && f.includes('Inbox dead letters  none'), 'an empty throwaway')
    expect(frame).toMatch(/ · (scope )?default\/default\/bot\/default · memory/)
  })

  it('reads a file journal a running bot holds, and refuses to change it, naming the holder', async () => {
    const path = join(tempDir(), 'durable.json')
    await seedJournal(`file:${path}`)
    const holder: ChildProcess = spawn(
      process.execPath,
      ['--import', './test-utils/ts-loader.mjs', 'test/fixtures/cli/hold-file.ts', path],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    )
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.once('data', () => resolve())
        holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)))
      })
      const dashboard = mountDashboard(`file:${path}`, { refreshMs: 200 })
      await dashboard.until((f) => healthy(f) && f.includes('in-dead-1'), 'the held journal, read')
      dashboard.press('r', KEYS.enter)
      const frame = await dashboard.until((f) => f.includes('✖ replay failed'), 'the refusal')
      expect(frame).toMatch(new RegExp(`held by process ${holder.pid}`))
      expect(frame).toContain('in-dead-1')
      await dashboard.close()
    } finally {
      holder.stdin!.end()
      await new Promise((resolve) => holder.once('exit', resolve))
    }
    const free = mountDashboard(`file:${path}`, { refreshMs: 200 })
    await free.until((f) => f.includes('in-dead-1'), 'the journal once the bot stopped')
    free.press('r', KEYS.enter)
    await free.until((f) => f.includes('✔ replayed 1 of 1: in-dead-1') && !/› in-dead-1/.test(f), 'replayed in a file journal')
    await free.close()
    const opened = await openBackend(`file:${path}`)
    try {
      const [found] = await opened.backend.journal(SCOPE).read('inbox', ['in-dead-1'])
      expect(found?.record.state).toBe('pending')
    } finally {
      await opened.close()
    }
  })
})
