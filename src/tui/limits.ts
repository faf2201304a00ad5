/**
 * The dashboard's limits, named with units last and defined once: every list it holds, every
 * history it keeps and every wait it makes is bounded by one of these, so a dashboard left open
 * for a week on a journal of a million records holds what it held after a minute.
 */
export const DASHBOARD_LIMITS = {
  /** How often the backend is read when --refresh is not given. */
  refreshDefaultMs: 1_000,
  /** The fastest refresh allowed (each refresh is a handful of index reads). */
  refreshMinMs: 100,
  /** Samples kept for the sparklines and rates: at one refresh a second, the last three minutes. */
  historyMax: 180,
  /** Dead letters one page of a dead-letter panel reads and shows. */
  deadPageSize: 50,
  /**
   * Records a filtered dead-letter page reads at most before it stops and says so (pgdn reads on).
   * At a million records a filter that matches nothing costs about 100 ms a refresh with this.
   */
  filterScanMax: 2_000,
  /** A filtered page lets the terminal's keys in after every this many records it read. */
  filterYieldEvery: 500,
  /** Pages back a dead-letter panel remembers (PgUp). */
  pageStackMax: 1_000,
  /** Active leases read per refresh (soonest expiry first). */
  /** Dead letters a refresh reads to group them by error (the groups say when they cover fewer). */
  errorGroupScanMax: 2_000,
  /** Records of the retry queue a refresh reads (failed, soonest retry first). */
  retryQueueMax: 100,
  leasesMax: 100,
  /** Scopes the scope picker lists. */
  scopesMax: 1_000,
  /** Lines a record's detail keeps (its JSON payload is cut after this). */
  detailLinesMax: 400,
  /** Characters a line of a record's detail keeps. */
  detailLineLengthMax: 1_000,
  /** Characters the filter may hold. */
  filterLengthMax: 200,
  /** Characters of the reason a confirmation takes. */
  reasonLengthMax: 200,
  /** Lines the message line wraps to at most (a question, an outcome, a failure); past it the middle is cut. */
  messageLinesMax: 4,
  /** How long the Instances panel shows a run that died (after its last beat), also once its successor stopped. */
  lostRunShownMs: 10 * 60_000,
  /** Runs that died the Instances panel remembers at most. */
  lostRunsMax: 20,
  /** How long a notice (an action's outcome) stays on the message line. */
  noticeMs: 15_000,
  /** The countdowns (lease expiry, ages) move this often between refreshes. */
  tickMs: 1_000,
  /** After a failed refresh the next try waits at most this long (the wait doubles from the refresh rate). */
  retryMaxMs: 10_000,
  /** A refresh that takes longer than this (or 10 refresh periods) is given up and reported. */
  refreshTimeoutMs: 15_000,
  /** Progress of a bulk action is shown at most this often. */
  progressEveryMs: 100,
  /** How long quitting waits for a refresh in flight before it closes the backend anyway. */
  stopWaitMs: 5_000,
} as const
