/**
 * Durations: every duration option takes milliseconds or a string such as '15s', '60s', '7d'
 * (parsed by the `ms` package, which everyone already knows from Vercel's tooling).
 */
import ms from 'ms'
import { ConfigError } from '../errors/errors.js'

/** Milliseconds, or a string like '500ms', '15s', '2m', '7d'. */
export type Duration = number | string

/** Parses a duration; throws a ConfigError naming the option when it is not one. */
export function toMs(value: Duration, option: string): number {
  const parsed = typeof value === 'number' ? value : ms(value as ms.StringValue)
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed < 0) {
    throw new ConfigError(`${option} must be a duration in ms or a string like '15s'; got ${JSON.stringify(value)}`)
  }
  return parsed
}
