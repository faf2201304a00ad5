/** Small formatters the human views share: ages, times and errors as people read them. */
import type { ErrorInfo } from '../../core/durability/journal/records.js'
import { duration, iso } from '../../operator/show.js'

export { duration, iso }

/** "12s ago" from a timestamp and now. */
export function ago(at: number | null | undefined, now: number): string {
  return at === null || at === undefined ? '-' : `${duration(now - at)} ago`
}

/** An error's message with its code. */
export function errorLine(error: ErrorInfo | null | undefined): string {
  if (!error) return '-'
  return `${error.code ? `${error.code}: ` : ''}${error.message}`
}

/** "3.2/s" */
export function perSecond(value: number | undefined): string {
  return `${(value ?? 0).toFixed(value !== undefined && value < 10 ? 2 : 1)}/s`
}
