/**
 * `HostClock`: the clock every process on one host agrees on and that never steps, for the journals
 * whose processes share a host and have no server clock to ask (SQLite, the shared file journal;
 * the anchor stores are `sqlite/clock-anchor.ts` and `clock-anchor-file.ts`).
 *
 * Each process reading `Date.now()` would judge leases by its own wall clock, which NTP or an
 * operator may step by minutes: a process stepped ahead takes another's live lease, one stepped back
 * writes leases that are already over. The host's monotonic clock (CLOCK_MONOTONIC) is one clock for
 * every process of the host and never steps, but it starts at boot. So the first process of a boot
 * stores an anchor in the journal (wall time minus monotonic time, under the boot's id) and every
 * process of that boot reads the same anchor and gives anchor + monotonic time: times stay epoch
 * milliseconds (the formats and what the CLI shows are unchanged) and all processes agree exactly.
 * A new boot (a new boot id) stores an anchor of its own. Where the host names no boot (not Linux),
 * the clock is the wall clock, as before, and the engine's clock still measures elapsed time on the
 * monotonic clock between its syncs.
 */
import { readFileSync } from 'node:fs'

/** Where a host clock's readings come from: the host's, or a test's. */
export interface HostClockSources {
  /** The wall clock, ms since the epoch. */
  wall(): number
  /** The host's monotonic clock in ms: one clock for every process of a boot, never stepped. */
  monotonic(): number
  /** The id of the host's current boot; undefined where the host has none (then the wall clock is used). */
  bootId(): string | undefined
}

/** The time origin of one boot's clock: now = anchorMs + monotonic(). */
export interface ClockAnchor {
  bootId: string
  anchorMs: number
}

/** Where the processes sharing a journal keep their anchors: in the journal's own files. */
export interface ClockAnchorStore {
  /**
   * The anchor stored for `proposed.bootId`, storing `proposed` first when there is none, atomically
   * across processes: every caller of one boot gets the same anchor back.
   */
  anchor(proposed: ClockAnchor): Promise<ClockAnchor> | ClockAnchor
}

/** The host clock's limits. */
export const HOST_CLOCK_LIMITS = {
  /**
   * Boots whose anchor a journal keeps (the newest): one boot needs one, each is a few bytes; the
   * others are there for hosts that share a journal by mistake, so they do not re-anchor in turns.
   */
  anchorsKept: 16,
} as const

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id'

let hostBootId: string | null | undefined
function readBootId(): string | undefined {
  if (hostBootId === undefined) {
    try {
      hostBootId = readFileSync(BOOT_ID_FILE, 'utf8').trim() || null
    } catch {
      hostBootId = null
    }
  }
  return hostBootId ?? undefined
}

/**
 * This host's sources. `process.hrtime` is CLOCK_MONOTONIC on Linux (libuv): the same reading in
 * every process, unlike `performance.now()`, whose origin is each process's start.
 */
export const HOST_SOURCES: HostClockSources = {
  wall: () => Date.now(),
  monotonic: () => Number(process.hrtime.bigint()) / 1e6,
  bootId: readBootId,
}

/** A clock shared by the processes of one host through an anchor kept in their journal. */
export class HostClock {
  #anchorMs: number | undefined
  #anchoring: Promise<void> | undefined

  constructor(
    private readonly store: ClockAnchorStore,
    private readonly sources: HostClockSources = HOST_SOURCES,
  ) {}

  /** Reads the boot's anchor, storing one if this process is the boot's first (once; idempotent). */
  ready(): Promise<void> {
    this.#anchoring ??= this.#anchor().catch((error: unknown) => {
      this.#anchoring = undefined
      throw error
    })
    return this.#anchoring
  }

  /** Whether now() runs on the anchored monotonic clock (false: the host names no boot). */
  get anchored(): boolean {
    return this.#anchorMs !== undefined
  }

  /** Now in whole ms since the epoch: the boot's anchor plus the monotonic clock, or the wall clock without one. */
  now(): number {
    if (this.#anchorMs === undefined) return this.sources.wall()
    return Math.floor(this.#anchorMs + this.sources.monotonic())
  }

  async #anchor(): Promise<void> {
    const bootId = this.sources.bootId()
    if (bootId === undefined) return
    const proposed = { bootId, anchorMs: Math.round(this.sources.wall() - this.sources.monotonic()) }
    const stored = await this.store.anchor(proposed)
    this.#anchorMs = stored.anchorMs
  }
}
