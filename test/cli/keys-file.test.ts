/**
 * A `--keys` file open to its group or to others is refused, as ssh refuses a private key
 * (KEYS_FILE_INSECURE, exit 2, the file never quoted), unless `--insecure-keys-file` is given; a file
 * only its owner can read is read as before (issue 41).
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openBackend } from '../../src/operator/gateway/open.js'
import { KeysFileInsecureError } from '../../src/cli/errors.js'
import { loadKeys } from '../../src/cli/keys.js'
import { ERROR_CODES } from '../../src/core/errors/errors.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { botmesh, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const KEY = randomBytes(32).toString('base64')
const KEYS = JSON.stringify({ keys: { k1: KEY }, current: 'k1' })

let dir: string
let url: string

beforeAll(async () => {
  dir = tempDir()
  url = `sqlite:${join(dir, 'bot.db')}`
  const opened = await openBackend(url, { access: 'create' })
  try {
    const record = inboxRecord('mock:c1:m1', { state: 'done' })
    await opened.backend.journal('default/default/bot/default').write('operator.import', [{ kind: 'inbox', record, expectVersion: 0 }])
  } finally {
    await opened.close()
  }
})

/** A keys file with these permission bits (chmod after writing: the umask does not narrow them). */
function keysFile(name: string, mode: number): string {
  const path = join(dir, name)
  writeFileSync(path, KEYS)
  chmodSync(path, mode)
  return path
}

describe('a --keys file', () => {
  it.each([0o644, 0o640, 0o604, 0o660, 0o620])('open as %o is refused with KEYS_FILE_INSECURE, exit 2', async (mode) => {
    const file = keysFile(`open-${mode.toString(8)}.json`, mode)
    const run = await botmesh(['show', 'mock:c1:m1', '--backend', url, '--keys', file])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr).toContain(`--keys: ${file} is open to its group or to others (mode 0${mode.toString(8)})`)
    expect(run.stderr).toContain(`chmod 600 ${file}`)
    expect(run.stderr).toContain('--insecure-keys-file')
    expect(run.stderr).toContain('(KEYS_FILE_INSECURE)')
    expect(run.stderr).not.toContain(KEY)
  })

  it('readable by its owner only is read', async () => {
    for (const mode of [0o600, 0o400]) {
      const file = keysFile(`owner-${mode.toString(8)}.json`, mode)
      const run = await botmesh(['show', 'mock:c1:m1', '--backend', url, '--keys', file])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain('mock:c1:m1')
    }
  })

  it('open to others is read with --insecure-keys-file', async () => {
    const file = keysFile('insecure.json', 0o644)
    const run = await botmesh(['show', 'mock:c1:m1', '--backend', url, '--keys', file, '--insecure-keys-file'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('mock:c1:m1')
  })

  it('is refused with an error class that names the file and the mode, and its stable code', () => {
    const file = keysFile('class.json', 0o644)
    let thrown: unknown
    try {
      loadKeys(file, {})
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(KeysFileInsecureError)
    expect(thrown).toMatchObject({ code: ERROR_CODES.KEYS_FILE_INSECURE, file, mode: 0o644 })
    expect(loadKeys(file, {}, { insecure: true })?.ring).toBeDefined()
    expect(loadKeys(undefined, { BOTMESH_ENCRYPTION_KEYS: KEYS })?.ring).toBeDefined()
  })

  it('--help says the file must be its owner only, and how to read it anyway', async () => {
    const help = await botmesh(['show', '--help'])
    const text = help.stdout.replace(/\s+/g, ' ')
    expect(text).toMatch(/--keys <file> .* the file must be readable by its owner only \(chmod 600\)/)
    expect(text).toContain('--insecure-keys-file read a --keys file even when its group or others may read or write it')
  })
})
