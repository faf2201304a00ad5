/** The one loader of optional peer dependencies: a package that is not installed is DRIVER_MISSING, naming it and the command. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadDriver } from '../../src/core/platform/driver.js'
import { DriverMissingError } from '../../src/core/errors/errors.js'

// Names no registry package has, so nothing installed can answer for them.
const ABSENT = 'botmesh-test-absent-driver-7f3a'
const dir = mkdtempSync(join(tmpdir(), 'botmesh-driver-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Node's own import of a specifier it has to resolve at run time. */
const importNamed = (specifier: string) => () => import(/* @vite-ignore */ specifier)

describe('loadDriver', () => {
  it('a package that is not installed fails with DRIVER_MISSING in one line naming it and the command', async () => {
    const error = await loadDriver({ packageName: ABSENT, neededBy: 'botmesh/some-store', load: importNamed(ABSENT) }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DriverMissingError)
    expect(error).toMatchObject({ code: 'DRIVER_MISSING', retryable: false, driver: ABSENT })
    expect((error as Error).message).toBe(
      `botmesh/some-store needs the "${ABSENT}" package, which is not installed: run npm install ${ABSENT}`,
    )
    expect((error as Error).message).not.toContain('\n')
    expect((error as Error).cause).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' })
  })

  it('names the version to install when the default tag is not one that works', async () => {
    const error = await loadDriver({
      packageName: ABSENT,
      neededBy: 'the X provider',
      load: importNamed(ABSENT),
      version: '^7.0.0-rc14',
    }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'DRIVER_MISSING', driver: ABSENT })
    expect((error as Error).message).toMatch(/run npm install botmesh-test-absent-driver-7f3a@\^7\.0\.0-rc14$/)
  })

  it('a scoped package that is not installed is named whole', async () => {
    const error = await loadDriver({
      packageName: `@botmesh-test/${ABSENT}`,
      neededBy: 'x',
      load: importNamed(`@botmesh-test/${ABSENT}`),
    }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'DRIVER_MISSING', driver: `@botmesh-test/${ABSENT}` })
    expect((error as Error).message).toMatch(new RegExp(`run npm install @botmesh-test/${ABSENT}$`))
  })

  it('passes on a failure that installing the package would not cure', async () => {
    // A file missing inside what was found, and a module that throws while it loads.
    const missingFile = await loadDriver({
      packageName: ABSENT,
      neededBy: 'x',
      load: importNamed(pathToFileURL(join(dir, 'gone.mjs')).href),
    }).catch((e: unknown) => e)
    expect(missingFile).not.toBeInstanceOf(DriverMissingError)
    expect(missingFile).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' })
    writeFileSync(join(dir, 'throws.mjs'), "throw new Error('the addon was built for another Node.js')\n")
    const throwing = await loadDriver({
      packageName: ABSENT,
      neededBy: 'x',
      load: importNamed(pathToFileURL(join(dir, 'throws.mjs')).href),
    }).catch((e: unknown) => e)
    expect(throwing).not.toBeInstanceOf(DriverMissingError)
    expect((throwing as Error).message).toBe('the addon was built for another Node.js')
  })

  it('returns the module of an installed package', async () => {
    const module = await loadDriver({ packageName: 'ms', neededBy: 'x', load: () => import('ms') })
    expect((module as unknown as { default: (value: string) => number }).default('2s')).toBe(2000)
  })
})
