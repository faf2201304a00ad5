/**
 * Secrets never appear in logs, errors or the journal. A transport's error messages can quote a
 * URL or a response that holds its token (Telegram's file URLs carry the bot token); everything a
 * transport reports goes through `redact` first.
 */

/** The mark that replaces a secret. */
export const REDACTED = '[redacted]'

/** How many nested causes a redacted description follows. @default 4 */
const CAUSE_DEPTH_MAX = 4

/** `text` with every occurrence of each secret (of at least 4 characters) replaced. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join(REDACTED)
  }
  return result
}

/** What an error says, with its nested causes (`cause`, or grammY's `error`), secrets cut. */
export function describeError(error: unknown, secrets: readonly (string | undefined)[]): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < CAUSE_DEPTH_MAX && current !== undefined && current !== null; depth++) {
    parts.push(current instanceof Error ? `${current.name}: ${current.message}` : String(current))
    const next = current as { cause?: unknown; error?: unknown }
    current = typeof current === 'object' ? (next.cause ?? next.error) : undefined
  }
  return redact(parts.join(' <- '), secrets)
}

/** A plain Error that says what `error` (and its causes) said, with the secrets cut: safe to keep as a `cause`. */
export function redactedCause(error: unknown, secrets: readonly (string | undefined)[]): Error {
  return new Error(describeError(error, secrets))
}
