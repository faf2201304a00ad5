/**
 * The CLI's configuration, resolved in one function: a flag wins over the environment, which wins
 * over the default. The result carries the same options object `openBackend` takes.
 */
import { toMs } from '../core/options/duration.js'
import { parseBackendUrl } from '../operator/gateway/open.js'
import { UsageError } from '../operator/errors.js'
import type { BackendChoice } from '../operator/session.js'
import { loadKeys } from './keys.js'
import { OUTPUT_FORMATS, type OutputFormat } from './output.js'

/** The backend the CLI opens when neither --backend nor BOTMESH_BACKEND says one: the embedded default. */
export const DEFAULT_BACKEND = 'sqlite:./data/bot.db'

/** How long opening a server backend may take before the CLI gives up, by default. */
export const CONNECT_TIMEOUT_DEFAULT = '5s'

/** The global flags, as commander parsed them. */
export interface GlobalFlags {
  backend?: string
  scope?: string
  bot?: string
  json?: boolean
  output?: string
  connectTimeout?: string
  keys?: string
  insecureKeysFile?: boolean
}

/** Everything a command needs to know before it opens anything. */
export interface CliConfig extends BackendChoice {
  /** The backend URL as given (never printed: `target.label` is the redacted form). */
  backend: string
  /** Where the backend URL came from. */
  backendFrom: 'flag' | 'env' | 'default'
  /** -o table|json|jsonl (--json is -o json). */
  format: OutputFormat
  /** Whether the result is for a program (json or jsonl): human messages go to stderr. */
  json: boolean
  /** Text the output scrubs wherever it shows up: the URL's password, the keys as given. */
  secrets: string[]
}

/** flag > environment > default, for every setting. Throws `BackendUrlError` / `UsageError` on bad values. */
export function resolveCliConfig(flags: GlobalFlags, env: NodeJS.ProcessEnv): CliConfig {
  const fromEnv = env.BOTMESH_BACKEND?.trim() || undefined
  const backend = flags.backend ?? fromEnv ?? DEFAULT_BACKEND
  const backendFrom = flags.backend !== undefined ? 'flag' : fromEnv !== undefined ? 'env' : 'default'
  if (flags.scope !== undefined && flags.bot !== undefined) throw new UsageError('give either --scope or --bot, not both')
  for (const [name, value] of [
    ['--scope', flags.scope],
    ['--bot', flags.bot],
  ] as const) {
    if (value !== undefined && value.trim() === '') throw new UsageError(`${name} needs a value`)
  }
  const format = outputFormat(flags)
  const target = parseBackendUrl(backend)
  const keys = loadKeys(flags.keys, env, { insecure: flags.insecureKeysFile === true })
  return {
    backend,
    backendFrom,
    target,
    scope: { scope: flags.scope, bot: flags.bot },
    format,
    json: format !== 'table',
    open: {
      connectTimeoutMs: parseDuration(flags.connectTimeout ?? env.BOTMESH_CONNECT_TIMEOUT ?? CONNECT_TIMEOUT_DEFAULT, '--connect-timeout'),
      redisUrl: env.BOTMESH_REDIS_URL,
      postgresUrl: env.BOTMESH_POSTGRES_URL,
    },
    keys: keys?.ring,
    secrets: [...target.secrets, ...(keys?.secrets ?? [])],
  }
}

/** The output format of -o, or of --json (its alias for -o json); the two may not disagree. */
export function outputFormat(flags: Pick<GlobalFlags, 'json' | 'output'>): OutputFormat {
  const format = flags.output === undefined ? undefined : parseChoice(flags.output, OUTPUT_FORMATS, '-o/--output')
  if (flags.json === true && format !== undefined && format !== 'json')
    throw new UsageError(`--json is -o json; it cannot go with -o ${format}`)
  return flags.json === true ? 'json' : (format ?? 'table')
}

/** A duration flag ('5s', '1h', or ms) in ms; a `UsageError` naming the flag when it is not one. */
export function parseDuration(value: string, flag: string, options: { zero?: boolean } = {}): number {
  try {
    const ms = toMs(/^\d+$/.test(value) ? Number(value) : value, flag)
    if (ms < 0 || (ms === 0 && !options.zero)) throw new Error('not positive')
    return ms
  } catch {
    throw new UsageError(`${flag} must be a duration such as 30s, 15m, 7d (or milliseconds); got ${JSON.stringify(value)}`)
  }
}

/** A whole-number flag within bounds; a `UsageError` naming the flag otherwise. */
export function parseCount(value: string, flag: string, bounds: { min?: number; max?: number } = {}): number {
  const { min = 1, max = Number.MAX_SAFE_INTEGER } = bounds
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`)
  }
  return n
}

/** A positive rate (per second, fractions allowed). */
export function parseRate(value: string, flag: string): number {
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a positive number per second; got ${JSON.stringify(value)}`)
  return n
}

/** `--since`: a duration back from now ('1h') or a date ('2024-05-01T10:00Z'), as ms since the epoch. */
export function parseSince(value: string, now: number): number {
  const forms = 'a duration back from now (30m, 2h, 7d, or milliseconds) or an ISO 8601 date (2024-05-01, 2024-05-01T10:00Z)'
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const at = Date.parse(value)
    if (Number.isFinite(at)) return at
    throw new UsageError(`--since must be ${forms}; ${JSON.stringify(value)} is not a valid date`)
  }
  try {
    return now - parseDuration(value, '--since')
  } catch {
    throw new UsageError(`--since must be ${forms}; got ${JSON.stringify(value)}`)
  }
}

/** One value of a fixed set; a `UsageError` listing the choices otherwise. */
export function parseChoice<T extends string>(value: string, choices: readonly T[], flag: string): T {
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${choices.join(', ')}; got ${JSON.stringify(value)}`)
  return value as T
}
