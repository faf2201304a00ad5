/** The pg driver loads only when a PostgreSQL backend starts, and a missing one says what to install. */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'

const available = await postgresAvailable()
const run = promisify(execFile)

async function child(tablePrefix: string, mode = ''): Promise<Record<string, unknown>> {
  const args = [
    '--import',
    './test-utils/ts-loader.mjs',
    'test/fixtures/postgres/lazy-driver.ts',
    PG_URL,
    tablePrefix,
    ...(mode ? [mode] : []),
  ]
  const { stdout } = await run(process.execPath, args, { cwd: process.cwd(), timeout: 20_000 })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
}

describe.runIf(available)('the pg driver', () => {
  const prefixes: string[] = []
  afterEach(async () => {
    for (const prefix of prefixes.splice(0)) await dropTablePrefix(prefix)
  })

  it('is not loaded by importing the backend, only when it starts', async () => {
    const tablePrefix = randomTablePrefix()
    prefixes.push(tablePrefix)
    expect(await child(tablePrefix)).toEqual({ loadedBeforeStart: false, loadedAfterStart: true })
  })

  it('missing, fails start with DRIVER_MISSING and the package to install', async () => {
    const report = await child(randomTablePrefix(), 'missing')
    expect(report.loadedBeforeStart).toBe(false)
    expect(report.error).toMatchObject({ name: 'DriverMissingError', code: 'DRIVER_MISSING' })
    expect((report.error as { message: string }).message).toMatch(/npm install pg/)
  })
})
