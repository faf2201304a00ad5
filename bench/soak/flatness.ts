/**
 * The soak's verdict: does the journal stay flat under steady traffic? Over the last half of the
 * run (the first half is the journal filling up to its retention and the process warming up),
 * each figure's spread is (highest − lowest) ÷ mean of its samples; the run is flat when both the
 * journal's records and the process's RSS spread by at most `FLAT_SPREAD_MAX_PERCENT`.
 */
import { round } from '../../src/cli/services/closed-loop.js'

/** The most a figure may spread over the last half of a soak and still count as flat, in percent. @default 20 */
export const FLAT_SPREAD_MAX_PERCENT = 20

/** What flatness is judged on, from each sample. */
export interface FlatnessInput {
  /** Seconds since the run started. */
  atSeconds: number
  journalRecords: number
  rssBytes: number
}

/** One figure over the last half. */
export interface Spread {
  min: number
  max: number
  mean: number
  /** (max − min) ÷ mean, in percent; 0 when every sample was 0. */
  spreadPercent: number
}

/** The verdict and what it rests on. */
export interface Flatness {
  /** The last half starts here, seconds since the start. */
  fromSeconds: number
  /** Samples taken in the last half. */
  samples: number
  spreadMaxPercent: number
  /** Null with fewer than two samples in the last half. */
  journalRecords: Spread | null
  rssBytes: Spread | null
  /** Both spreads within spreadMaxPercent; null when there were too few samples to tell. */
  flat: boolean | null
}

/** The spread of `values`; null with fewer than two. */
export function spreadOf(values: readonly number[]): Spread | null {
  if (values.length < 2) return null
  const min = Math.min(...values)
  const max = Math.max(...values)
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length
  return { min, max, mean: round(mean, 1), spreadPercent: mean > 0 ? round(((max - min) / mean) * 100, 1) : 0 }
}

/** The verdict over the samples taken at or after half of `runSeconds`. */
export function flatnessOf(samples: readonly FlatnessInput[], runSeconds: number): Flatness {
  const fromSeconds = round(runSeconds / 2, 3)
  const lastHalf = samples.filter((sample) => sample.atSeconds >= fromSeconds)
  const journalRecords = spreadOf(lastHalf.map((sample) => sample.journalRecords))
  const rssBytes = spreadOf(lastHalf.map((sample) => sample.rssBytes))
  return {
    fromSeconds,
    samples: lastHalf.length,
    spreadMaxPercent: FLAT_SPREAD_MAX_PERCENT,
    journalRecords,
    rssBytes,
    flat:
      journalRecords && rssBytes
        ? journalRecords.spreadPercent <= FLAT_SPREAD_MAX_PERCENT && rssBytes.spreadPercent <= FLAT_SPREAD_MAX_PERCENT
        : null,
  }
}
