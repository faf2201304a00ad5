/**
 * What an inbound event must be before the inbox can key it: an object with a non-empty string `id`
 * and `chatId` (the record id is built from them). A provider that hands over anything else gets a
 * final `InvalidEventError` naming the field, not a `TypeError` from deep inside the admission and
 * not a retryable error the channel would be told to redeliver for ever.
 */
import { InvalidEventError } from '../../errors/errors.js'
import type { InboundEvent } from '../../provider/provider.js'

/** Why `event` cannot be keyed, or undefined when it can. */
export function eventProblem(event: InboundEvent): string | undefined {
  if (event === null || typeof event !== 'object') return `it is ${event === null ? 'null' : typeof event}, not an object`
  for (const field of ['id', 'chatId'] as const) {
    const value: unknown = event[field]
    if (typeof value !== 'string' || value === '') return `its ${field} is ${describe(value)}, not a non-empty string`
  }
  return undefined
}

/** When `event` cannot be keyed: reports an `InvalidEventError` and returns a promise rejected with it. */
export function refuseInvalidEvent(event: InboundEvent, report: (error: unknown) => void): Promise<void> | undefined {
  const problem = eventProblem(event)
  if (problem === undefined) return undefined
  const error = new InvalidEventError(problem)
  report(error)
  return Promise.reject(error)
}

function describe(value: unknown): string {
  if (value === '') return 'empty'
  if (value === null || value === undefined) return String(value)
  return `a ${typeof value} (${String(value).slice(0, 40)})`
}
