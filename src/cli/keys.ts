/**
 * The encryption keys a command opens sealed records with: `--keys <file>`, else the
 * `BOTMESH_ENCRYPTION_KEYS` environment variable, else none (sealed content then stays sealed and
 * is shown as "(encrypted, key k1)"). Both hold the bot's `durability.encryption` as JSON:
 * `{ "keys": { "k1": "<base64 of 32 bytes>" }, "current": "k1" }`. No message ever repeats their
 * content: a bad file is described, never quoted.
 */
import { readFileSync } from 'node:fs'
import type { EncryptionOptions } from '../core/durability/config.js'
import { KeyRing } from '../core/encryption/key-ring.js'
import { ConfigError } from '../core/errors.js'
import { UsageError } from './errors.js'

/** The environment variable that holds the keys when --keys is not given. */
export const KEYS_ENV = 'BOTMESH_ENCRYPTION_KEYS'

const SHAPE = '{ "keys": { "<id>": "<base64 of 32 bytes>" }, "current": "<id>" }'

/** The keys of this run, and their text forms (to scrub from any output), or undefined when none were given. */
export function loadKeys(file: string | undefined, env: NodeJS.ProcessEnv): { ring: KeyRing; secrets: string[] } | undefined {
  const where = file !== undefined ? `--keys ${file}` : KEYS_ENV
  let text: string
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`--keys: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`)
    }
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
