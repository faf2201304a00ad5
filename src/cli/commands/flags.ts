/** The parsed flags that several commands share, as commander hands them to an action. */
import type { FilterFlags } from '../options.js'

/** Flags of destructive and bulk commands. */
export interface ChangeFlags extends FilterFlags {
  limit?: string
  rate?: string
  dryRun?: boolean
  yes?: boolean
  reason?: string
}
