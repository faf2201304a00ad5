/** Every limit of the sealing layer, named, with units last. */
export const ENCRYPTION_LIMITS = {
  /** Sealed fields remembered with their clear value, so a record rewritten unchanged (claimed, completed) is not sealed again. */
  recentSealsMax: 10_000,
  /** Records a page (due, list, purge) may pass over because they cannot be opened, before it returns what it found. */
  unreadableScanMax: 10_000,
  /** Records whose unreadable key a bot has reported, so each is reported once and not on every sweep. */
  unreadableReportedMax: 10_000,
} as const
