/**
 * `botmesh doctor` on the machine's PostgreSQL, the built binary: every line, each setting graded
 * as a start acts on it. `synchronous_commit = off` comes from the URL's `options` (as a session
 * of the backend would see it), so the server itself is never changed.
 */
import { describe, expect, it } from 'vitest'
import { adminQuery, PG_URL, pgUrlWith, postgresAvailable } from '../../test-utils/postgres.js'
import { doctorJson } from './doctor-run.js'
import { botmesh } from './helpers.js'

const POSTGRES_CHECKS = ['connection', 'synchronous_commit', 'fsync', 'full_page_writes', 'replication', 'version', 'clock', 'tls']

const available = await postgresAvailable()

describe.runIf(available)('botmesh doctor on the machine PostgreSQL', () => {
  it('lists every check; each setting line says what the server has', async () => {
    const {
      rows: [settings],
    } = await adminQuery<{ synchronous_commit: string; fsync: string; version: string }>(
      `SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync, current_setting('server_version') AS version`,
    )
    const { run, report, line } = await doctorJson(PG_URL)
    expect(report.checks.map((check) => check.name)).toEqual(POSTGRES_CHECKS)
    expect(report.kind).toBe('postgres')
    expect(line('connection').status).toBe('ok')
    expect(line('version')).toMatchObject({ status: 'ok', found: `PostgreSQL ${settings!.version}` })
    expect(line('synchronous_commit').status).toBe(settings!.synchronous_commit === 'off' ? 'warn' : 'ok')
    expect(line('fsync').status).toBe(settings!.fsync === 'off' ? 'warn' : 'ok')
    expect(run.code).toBe(report.counts.fail > 0 ? 1 : 0)
  })

  it('synchronous_commit off: a warn naming it, a fail with exit 1 under requirePersistence', async () => {
    const off = pgUrlWith({ options: '-c synchronous_commit=off' })
    const { run, line } = await doctorJson(off)
    expect(line('synchronous_commit')).toMatchObject({ status: 'warn', found: expect.stringContaining('synchronous_commit is "off"') })
    expect(line('synchronous_commit').fix).toContain('synchronous_commit = on')
    expect(run.code).toBe(0)
    const strict = await doctorJson(pgUrlWith({ options: '-c synchronous_commit=off', requirePersistence: 'true' }))
    expect(strict.line('synchronous_commit').status).toBe('fail')
    expect(strict.line('fsync').status).toBe('ok')
    expect(strict.run.code).toBe(1)
    const human = await botmesh(['doctor', '--backend', pgUrlWith({ options: '-c synchronous_commit=off' })])
    expect(human.stdout).toMatch(/^WARN +synchronous_commit +synchronous_commit is "off"/m)
    expect(human.stdout).toMatch(/^ +fix: Set synchronous_commit = on/m)
  })

  it('a server that refuses the connection: one connection line, a fail, exit 1', async () => {
    const url = new URL(PG_URL)
    url.port = '1'
    const { run, report } = await doctorJson(url.toString())
    expect(report.checks).toEqual([expect.objectContaining({ name: 'connection', status: 'fail' })])
    expect(run.code).toBe(1)
  })
})
