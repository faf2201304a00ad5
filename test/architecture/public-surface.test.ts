/**
 * The public surface as designed (docs/api-surface.md): `botmesh/core/spi` exports the backend
 * contract alone, no package export leads to what the first-party backends share beyond it, and
 * the package exports at most 15 error classes, the contract's nine among them.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string }> }

/** The most error classes the package exports, all entry points together (issue 45). */
const ERROR_CLASSES_MAX = 15

/** The error classes the durability contract names, each public under that name. */
const CONTRACT_ERRORS = [
  'MediaUnavailableError',
  'OutsideSessionWindowError',
  'PayloadTooLargeError',
  'ProviderError',
  'ProviderNotLeaderError',
  'RateLimitedError',
  'RecipientUnreachableError',
  'SendDeferredError',
  'UnsupportedContentError',
]

/** Helpers the SPI exported before it held the contract alone: first-party internals now. */
const BACKEND_INTERNALS = [
  'KvState',
  'BackgroundLoop',
  'backoffMs',
  'listedLines',
  'optionNames',
  'refuseUnknownOptions',
  'countByPaging',
  'writeNames',
  'MemoryKv',
  'recordIndex',
  'searchPage',
]

/** Every package export's runtime names, read from its source entry. */
async function entryModules(): Promise<[string, Record<string, unknown>][]> {
  const sources = new Set(Object.values(pkg.exports).map((target) => target.types.replace('./dist/', 'src/').replace(/\.d\.ts$/, '.ts')))
  return Promise.all(
    [...sources].map(async (source) => [source, (await import(pathToFileURL(join(ROOT, source)).href)) as Record<string, unknown>]),
  )
}

const isErrorClass = (value: unknown): value is typeof Error => typeof value === 'function' && value.prototype instanceof Error

describe('the public surface', () => {
  it('botmesh/core/spi exports the backend contract alone: KvDurability, ROOT_SCOPE and the conformance suite', async () => {
    const spi = (await import('../../src/core/spi.js')) as Record<string, unknown>
    expect(Object.keys(spi).sort()).toEqual(['CONFORMANCE_CASES', 'KvDurability', 'ROOT_SCOPE', 'runCase', 'runCases'])
  })

  it('no package export leads to the backend internals', async () => {
    for (const [source, names] of await entryModules()) {
      expect(
        BACKEND_INTERNALS.filter((name) => name in names),
        source,
      ).toEqual([])
    }
  })

  it(`exports at most ${ERROR_CLASSES_MAX} error classes, the contract's nine among them`, async () => {
    const errorClasses = new Set<typeof Error>()
    for (const [, names] of await entryModules()) for (const value of Object.values(names)) if (isErrorClass(value)) errorClasses.add(value)
    const names = [...errorClasses].map((type) => type.name)
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(ERROR_CLASSES_MAX)
    expect(names).toEqual(expect.arrayContaining(CONTRACT_ERRORS))
  })
})
