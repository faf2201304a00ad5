/**
 * The encryption keys a command opens sealed records with: `--keys <file>`, else the
 * `BOTMESH_ENCRYPTION_KEYS` environment variable, else none (sealed content then stays sealed and
 * is shown as "(encrypted, key k1)"). Both hold the bot's `durability.encryption` as JSON:
 * `{ "keys": { "k1": "<base64 of 32 bytes>" }, "current": "k1" }`. No message ever repeats their
 * content: a bad file is described, never quoted. A file open to its group or to others is refused
 * as ssh refuses a private key (`KeysFileInsecureError`), unless `--insecure-keys-file`.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs'
import type { EncryptionOptions } from '../core/durability/config.js'
import { KeyRing } from '../core/encryption/key-ring.js'
import { ConfigError } from '../core/errors/errors.js'
import { UsageError } from '../operator/errors.js'
import { KeysFileInsecureError } from './errors.js'

/** The environment variable that holds the keys when --keys is not given. */
export const KEYS_ENV = 'BOTMESH_ENCRYPTION_KEYS'

const SHAPE = '{ "keys": { "<id>": "<base64 of 32 bytes>" }, "current": "<id>" }'

/** How the keys file may be read. */
export interface KeysFileOptions {
  /** Read a file open to its group or to others (`--insecure-keys-file`). @default false */
  insecure?: boolean
}

/** The keys of this run, and their text forms (to scrub from any output), or undefined when none were given. */
export function loadKeys(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  how: KeysFileOptions = {},
): { ring: KeyRing; secrets: string[] } | undefined {
  const where = file !== undefined ? `--keys ${file}` : KEYS_ENV
  let text: string
  if (file !== undefined) {
    text = readKeysFile(file, how.insecure === true)
  } else {
    const fromEnv = env[KEYS_ENV]?.trim()
    if (!fromEnv) return undefined
    text = fromEnv
  }
  let options: EncryptionOptions
  try {
    options = JSON.parse(text) as EncryptionOptions
  } catch {
    // JSON.parse quotes the text it fails on: its message must not reach the output.
    throw new UsageError(`${where} is not JSON; expected ${SHAPE}`)
  }
  try {
    const ring = KeyRing.from(options, where)
    const secrets = Object.values(options.keys).filter((key): key is string => typeof key === 'string')
    return { ring, secrets }
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`${error.message}; expected ${SHAPE}`)
    throw error
  }
}

/** The file's text, checked on the descriptor it is read from (no window between the check and the read). */
function readKeysFile(file: string, insecure: boolean): string {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    throw new UsageError(`--keys: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`)
  }
  try {
    const { mode } = fstatSync(fd)
    // Windows has no such bits (every file reports 0o666): there the folder's ACL protects the file.
    if (!insecure && process.platform !== 'win32' && (mode & 0o077) !== 0) throw new KeysFileInsecureError(file, mode)
    return readFileSync(fd, 'utf8')
  } catch (error) {
    if (error instanceof KeysFileInsecureError) throw error
    throw new UsageError(`--keys: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`)
  } finally {
    closeSync(fd)
  }
}
