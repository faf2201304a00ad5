/**
 * Which pg errors mean "the server could not be reached or could not finish, try again later":
 * they become a retryable botmesh error (`JOURNAL_UNAVAILABLE`, `STORE_UNAVAILABLE`). Anything
 * else (a missing table, a malformed statement) is a bug or a damaged setup and passes through.
 */

/** Socket errors of an unreachable or vanished server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
])

/**
 * SQLSTATEs worth a retry: 08 connection exceptions, 53 insufficient resources (too many
 * connections), 57 operator intervention (shutdown, `pg_terminate_backend`, statement timeout),
 * 40001/40P01 serialization failure and deadlock, 55P03 lock not available.
 */
const RETRYABLE_STATES = [/^08/, /^53/, /^57/, /^40001$/, /^40P01$/, /^55P03$/]

/** What pg says when a connection is lost or never opened (these errors carry no code). */
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /timeout expired/i,
  /timeout exceeded when trying to connect/i,
  /Query read timeout/i,
  /not queryable/i,
  /Client was closed/i,
]

/** Whether an error from pg means the operation may succeed if tried again later. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true
    if (/^[0-9A-Z]{5}$/.test(code)) return RETRYABLE_STATES.some((state) => state.test(code))
  }
  if (error instanceof AggregateError) return error.errors.some(isUnavailable)
  return CONNECTION_MESSAGES.some((message) => message.test(error.message))
}

/** A short description of a pg error for a message (an AggregateError of a dual-stack connect says little). */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(describeError).join('; ')
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return error.message || (typeof code === 'string' ? code : error.name)
  }
  return String(error)
}

/**
 * What a failed call that `isUnavailable` says: a statement the server canceled (57014: it ran past
 * `statement_timeout`, or an operator canceled it; PostgreSQL says "due to user request" for a
 * timeout that fires while it parses) and a client that gave up waiting are named as timeouts,
 * with the limit, instead of as an unreachable server.
 */
export function unavailableMessage(target: string, error: unknown, statementTimeoutMs: number | undefined): string {
  const code = (error as { code?: unknown } | undefined)?.code
  const limit = statementTimeoutMs === undefined ? 'statementTimeoutMs' : `statementTimeoutMs (${statementTimeoutMs} ms)`
  if (code === '57014')
    return `PostgreSQL at ${target} canceled a statement: it ran longer than ${limit}, or an operator canceled it (the server said "${describeError(error)}")`
  if (error instanceof Error && /Query read timeout/i.test(error.message))
    return `PostgreSQL at ${target} did not answer a statement within ${limit} and its grace period; the connection was given up`
  return `PostgreSQL at ${target} is unavailable: ${describeError(error)}`
}
