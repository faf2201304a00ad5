/** The crash matrix's time limits, in one place: every case ends with a verdict, even a hung one. */
export const CRASH_CASE_LIMITS = {
  /**
   * A case (every generation, its graceful stops, the restarts and the journal check) that takes
   * longer fails with its seed; a hang is a bug too. A case takes well under a second on memory
   * and a few on a server; the margin is for a loaded machine.
   * @default 60_000
   */
  caseTimeoutMs: 60_000,
  /**
   * How long a generation waits for the journal to settle, at its start (what a dead generation
   * left, once its leases expire) and before its graceful stop (retries that are not due yet):
   * `bot.idle()` only says nothing is due *now*. A journal still unsettled after this is reported
   * by the journal check. On simulated time these are simulated ms: the same seed gives up at the
   * same point, and 10 s of leases and backoffs pass in a fraction of a real second.
   * @default 10_000
   */
  settleTimeoutMs: 10_000,
  /** Removing a case's throwaway data (after a verdict, a timeout or an interrupt) that takes longer is reported. @default 30_000 */
  cleanupTimeoutMs: 30_000,
} as const

/** Overrides of the limits for one run. */
export type CrashCaseLimits = { -readonly [K in keyof typeof CRASH_CASE_LIMITS]?: number }

/** How simulated time (simulated-time.ts) looks again at work that waits on nothing it can fire. */
export const SIMULATED_TIME_LIMITS = {
  /**
   * With no timer pending, the work waits on something outside (a hang, which the case's deadline
   * ends): the clock looks again after this many real ms rather than spinning.
   * @default 5
   */
  idleLookMs: 5,
} as const
