/**
 * Drivers, channel clients, prom-client and @opentelemetry/api are optional peer dependencies: with
 * every one of them unresolvable (a user who installed botmesh alone), every public subpath still
 * imports, and asking for one fails with DRIVER_MISSING naming the package and the command.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, unknown>
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
  devDependencies: Record<string, string>
}

describe('optional peer dependencies', () => {
  it('every driver and client is an optional peer, and a devDependency so the tests have it', () => {
    const drivers = ['better-sqlite3', 'ioredis', 'pg', 'grammy', 'prom-client', '@opentelemetry/api', 'twilio', 'baileys']
    for (const name of [...drivers, ...Object.keys(pkg.peerDependencies)]) {
      expect(pkg.dependencies[name], name).toBeUndefined()
      expect(pkg.peerDependencies[name], name).toBeDefined()
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true })
      expect(pkg.devDependencies[name], name).toBeDefined()
    }
  })

  it('with none installed, every subpath imports and a driver asked for is DRIVER_MISSING', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', './test-utils/ts-loader.mjs', '--import', './test/fixtures/hide-peers.mjs', 'test/fixtures/without-peers.ts'],
      { cwd: process.cwd(), timeout: 60_000 },
    )
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { imported: Record<string, string>; loads: Record<string, unknown> }
    expect(Object.keys(report.imported)).toEqual(Object.keys(pkg.exports))
    for (const [subpath, outcome] of Object.entries(report.imported)) expect(outcome, subpath).toBe('ok')
    expect(report.loads).toEqual({
      'prom-client': {
        code: 'DRIVER_MISSING',
        message: 'botmesh/prometheus needs the "prom-client" package, which is not installed: run npm install prom-client',
      },
      grammy: {
        code: 'DRIVER_MISSING',
        message: 'the telegram provider needs the "grammy" package, which is not installed: run npm install grammy',
      },
    })
  })
})
