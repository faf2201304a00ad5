/**
 * `npm run check:api` (scripts/api-report.mjs): the built surface is compared with the reports, and
 * a report that differs from the build fails the check, naming it and showing the difference, while
 * the reports that match pass. Reads dist/'s declarations: `npm run build` first (CI builds before
 * the tests); off CI a missing build is a loud skip.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../test-utils/lifecycle.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const SCRIPT = join(ROOT, 'scripts', 'api-report.mjs')
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
const tempDir = useTempDirs('botmesh-api-report-')

const built = existsSync(join(ROOT, 'dist', 'core', 'spi.d.ts'))
if (!built) {
  if (process.env.CI === 'true') throw new Error('dist/ has no declarations under CI=true: .ci/run builds before the tests')
  console.warn(
    '\n!!!!!!!! SKIPPED test/scripts/api-report.test.ts: dist/ has no declarations (npm run build). Under CI=true this fails. !!!!!!!!\n',
  )
}

/** Runs the script; resolves its exit code and output whatever the code. */
async function apiReport(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT, ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, output: failed.stdout + failed.stderr }
  }
}

describe('npm run check:api', () => {
  it('is the script, and api:report writes the reports', () => {
    expect(PKG.scripts['check:api']).toBe('node scripts/api-report.mjs')
    expect(PKG.scripts['api:report']).toBe('node scripts/api-report.mjs --update')
  })

  it.skipIf(!built)(
    'fails on a report the build differs from, naming it and showing the line, and passes the ones that match',
    async () => {
      const reports = tempDir()
      const written = await apiReport('--update', '--reports', reports)
      expect(written.code, written.output).toBe(0)
      expect(readdirSync(reports)).toContain('botmesh-core-spi.api.md')

      const spiReport = join(reports, 'botmesh-core-spi.api.md')
      const text = readFileSync(spiReport, 'utf8')
      expect(text).toContain('export class KvDurability')
      writeFileSync(spiReport, text.replace('export class KvDurability', 'export class KvDurabilityRenamed'))

      const checked = await apiReport('--reports', reports)
      expect(checked.code).toBe(1)
      expect(checked.output).toContain('the public surface differs from its report')
      expect(checked.output).toMatch(/differs from its report in [^:]+: botmesh-core-spi\.\n/)
      expect(checked.output).toContain('-export class KvDurabilityRenamed')
      expect(checked.output).toContain('+export class KvDurability')
    },
    300_000,
  )
})
