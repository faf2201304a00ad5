/**
 * Which of a crash case's lost and duplicated sends the ambiguity policy allows, and which break
 * the guarantee. A send whose own key was found ambiguous may be lost under onAmbiguous 'skip'
 * (never a duplicate, possibly lost) and may go out again under 'resend' once per time it was
 * found ambiguous (never lost, possibly a duplicate); anything else is a failure, as the matrix's
 * checker (src/testing/crash-matrix/checker.ts) judges it.
 */
import type { CrashCaseResult } from '../testing/crash-matrix/index.js'

/** A case's (or a run's) losses and duplicates, inside and beyond the ambiguous window. */
export interface AmbiguousWindow {
  /** What the policy allows: losses under 'skip', duplicates under 'resend', of ambiguous sends. */
  allowed: { lost: number; duplicated: number }
  /** What would be a failure: any other loss or duplicate, and any send nobody asked for. */
  beyond: { lost: number; duplicated: number; unexpected: number }
}

/** Splits a case's misses by what its policy allows. */
export function ambiguousWindow(result: Pick<CrashCaseResult, 'policy' | 'misses' | 'unexpected'>): AmbiguousWindow {
  const window: AmbiguousWindow = { allowed: { lost: 0, duplicated: 0 }, beyond: { lost: 0, duplicated: 0, unexpected: result.unexpected } }
  for (const miss of result.misses) {
    if (result.policy === 'skip') {
      if (miss.ambiguous > 0) window.allowed.lost += miss.lost
      else window.beyond.lost += miss.lost
      window.beyond.duplicated += miss.duplicated
    } else {
      window.beyond.lost += miss.lost
      const allowed = Math.min(miss.duplicated, miss.ambiguous)
      window.allowed.duplicated += allowed
      window.beyond.duplicated += miss.duplicated - allowed
    }
  }
  return window
}

/** The windows of several cases, summed. */
export function sumWindows(windows: readonly AmbiguousWindow[]): AmbiguousWindow {
  const total: AmbiguousWindow = { allowed: { lost: 0, duplicated: 0 }, beyond: { lost: 0, duplicated: 0, unexpected: 0 } }
  for (const { allowed, beyond } of windows) {
    total.allowed.lost += allowed.lost
    total.allowed.duplicated += allowed.duplicated
    total.beyond.lost += beyond.lost
    total.beyond.duplicated += beyond.duplicated
    total.beyond.unexpected += beyond.unexpected
  }
  return total
}

/** "2 lost, 1 duplicated" (only what is there), or "none". */
export function describeCounts(counts: Partial<Record<'lost' | 'duplicated' | 'unexpected', number>>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([what, n]) => `${n} ${what}`)
  return parts.length > 0 ? parts.join(', ') : 'none'
}
