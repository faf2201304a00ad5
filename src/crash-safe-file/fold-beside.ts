/**
 * FileDurability's fold of the append log into the snapshot, beside the appends (appendLog mode;
 * I6, I11, I13). Only two steps wait for the commits in flight and hold the next ones: taking the
 * committed entries with the log's last sequence, and, once the snapshot of them is durable,
 * replacing the log by the records appended meanwhile. Encoding and writing the snapshot, the long
 * part, run beside the appends, whose records all come after the snapshot's `logSeq` (I10).
 */
import type { KvState } from '../core/backend-internals.js'
import type { AppendLog } from './append-log.js'
import { writeFileAtomic } from './atomic-snapshot.js'
import { foldLog, type CompactionReport } from './compaction.js'
import { CompactionTrigger } from './compaction-trigger.js'
import type { FileSystem } from './fs.js'
import type { GroupCommit } from './group-commit.js'
import { FILE_LIMITS } from './options.js'
import { overlayOf, type PendingWrite } from './pending-writes.js'
import { encodeSnapshot, encodeSnapshotInSlices, snapshotEntries, type SnapshotEncodingCache } from './snapshot-format.js'

/** What a fold works on, and how it tells the open journal what it did. */
export interface FoldSite {
  readonly fs: FileSystem
  readonly path: string
  readonly format: string
  readonly state: KvState
  readonly commits: GroupCommit<PendingWrite>
  readonly encoded: SnapshotEncodingCache
  /** The log appended to now (undefined before the first append). */
  log(): AppendLog | undefined
  /** The last log sequence the snapshot holds. */
  logSeq(): number
  /** Why the journal takes no more calls, if it does not. */
  broken(): string | undefined
  /** The fold's snapshot is durable: the log is folded up to `logSeq`. */
  folded(logSeq: number): void
  /** The log was replaced: appends go to `log` from now on. */
  replaced(log: AppendLog): void
  /** The log was replaced but not durably: the journal takes no more calls (I5). */
  broke(reason: string): void
}

/** The folds of one journal, one at a time: a fold asked for while one runs follows it, and a log still due one when a fold ends starts the next. */
export class Folds {
  readonly #site: FoldSite
  readonly #trigger: CompactionTrigger
  #running: Promise<CompactionReport> | undefined

  /** `every`: the log's records or bytes that make it due a fold (compactEvery, compactBytes). */
  constructor(every: { records: number; bytes: number }, site: FoldSite) {
    this.#trigger = new CompactionTrigger(every)
    this.#site = site
  }

  /** The error of the last fold, if it failed. */
  get error(): unknown {
    return this.#trigger.error
  }

  /** After an append: a log due a fold starts one, not awaited (the writers are answered, later writes go on). */
  afterAppend(log: AppendLog): void {
    if (this.#running || !this.#trigger.schedule(log)) return
    void this.run().catch((error: unknown) => this.#trigger.failed(error, this.#site.log() ?? log))
  }

  /**
   * After a fold succeeded: the appends made while it ran may leave the log due another, and they
   * started none (one fold at a time). Nothing else would start it until the next append.
   */
  #foldAgainIfDue(): void {
    const log = this.#site.log()
    if (log && !this.#site.broken()) this.afterAppend(log)
  }

  /** Whether a fold runs (or waits for the one running). */
  get running(): boolean {
    return this.#running !== undefined
  }

  /** Resolves once the folds asked for so far ended, whichever way, and those they started in turn. */
  async settled(): Promise<void> {
    while (this.#running) await settled(this.#running)
  }

  /**
   * The fold of a close, in the caller's exclusive turn of the commits (nothing else writes, I6):
   * the snapshot written, then the log emptied.
   */
  async foldAlone(): Promise<CompactionReport> {
    const site = this.#site
    this.#trigger.started()
    const log = site.log()
    if (!log || log.records === 0) return { folded: 0, logBytes: 0, entries: site.state.size, logSeq: site.logSeq() }
    const snapshot = encodeSnapshot(site.state, log.lastSeq, overlayOf(site.commits.queuedItems()), site.encoded, site.format)
    const report = await foldLog(site.fs, site.path, snapshot, log)
    site.folded(report.logSeq)
    this.#trigger.succeeded()
    return report
  }

  /** Folds now, or after the fold running. */
  run(): Promise<CompactionReport> {
    const fold = settled(this.#running).then(() => foldBeside(this.#site, this.#trigger))
    this.#running = fold
    const forget = () => {
      if (this.#running === fold) this.#running = undefined
    }
    fold.then(() => {
      forget()
      this.#foldAgainIfDue()
    }, forget)
    return fold
  }
}

async function foldBeside(site: FoldSite, trigger: CompactionTrigger): Promise<CompactionReport> {
  const taken = await site.commits.exclusive(async () => {
    trigger.started()
    const log = site.log()
    if (!log || log.records === 0) return undefined
    // The entries as committed now: taken at once, encoded afterwards beside the appends (never mutated).
    const entries = snapshotEntries(site.state, overlayOf(site.commits.queuedItems()))
    return { entries, folded: { bytes: log.size, records: log.records }, logSeq: log.lastSeq }
  })
  if (!taken) return { folded: 0, logBytes: 0, entries: site.state.size, logSeq: site.logSeq() }
  const snapshot = await encodeSnapshotInSlices(taken.entries, taken.logSeq, site.encoded, site.format, FILE_LIMITS.foldSliceEntries)
  // Fsynced whatever the fsync option: replacing the log next destroys the only other copy (I11).
  await writeFileAtomic(site.fs, site.path, snapshot.chunks, { fsync: true })
  site.folded(taken.logSeq)
  await site.commits.exclusive(async () => {
    const log = site.log()!
    if (site.broken()) return
    try {
      site.replaced(await log.dropFolded(site.fs, taken.folded))
    } catch (error) {
      if (log.broken) site.broke('the log was replaced after a fold, but not durably')
      throw error
    }
  })
  trigger.succeeded()
  return { folded: taken.folded.records, logBytes: taken.folded.bytes, entries: taken.entries.length, logSeq: taken.logSeq }
}

/** Resolves once `work` settled, whichever way (at once without it). */
export function settled(work: Promise<unknown> | undefined): Promise<void> {
  return work ? work.then(noop, noop) : Promise.resolve()
}

function noop(): void {}
