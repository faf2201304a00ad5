/**
 * Where a provider's receive failures go (a journal that refused an event, a dropped connection):
 * the user's `onError`, read when the failure comes, or else one line on stderr that names the
 * channel and says what failed with every secret cut, so a token never reaches a log.
 */
import { describeError } from './redact.js'

/** The option every provider takes for its receive failures. */
export interface OnErrorOption {
  /** Where receive failures go (a journal that refused a message, a dropped connection). @default console.error, secrets cut */
  onError?: ((error: unknown) => void) | undefined
}

/** A reporter of `channel`'s receive failures to `options.onError`, or to stderr without `secrets`. */
export function errorReporter(channel: string, options: OnErrorOption, secrets: readonly (string | undefined)[]): (error: unknown) => void {
  return (error) => {
    if (options.onError) options.onError(error)
    else console.error(`${channel}: ${describeError(error, secrets)}`)
  }
}
