/**
 * The start's sweep takes back what a dead earlier run of this instanceId left and queues it in its
 * chats before the transport starts, so that a new message never overtakes an earlier one of its
 * chat. When that sweep fails (the store briefly away: a failover, a promoted replica not yet taking
 * writes), new messages wait for the next sweep to get through, and are refused while sweeps keep
 * failing (retryable: the channel delivers them again) rather than run ahead of their chat's older
 * ones.
 */
import { BotmeshError, JournalUnavailableError } from '../../errors/errors.js'

/** The sweep loop, as the recovery drives it. */
export interface SweepLoop {
  /** Runs a sweep as soon as possible. */
  kick(): void
  /** Resolves once no sweep is running. */
  settled(): Promise<void>
}

export class Recovery {
  #pending = false

  constructor(private readonly sweeps: SweepLoop) {}

  /**
   * Runs the start's sweep; a failure is reported. Retryable (the store away for now): admissions
   * wait for a sweep that gets through. Anything else (a record the journal cannot decode) would fail
   * every sweep alike: holding admissions back would stop the bot for good, so they go on as before.
   */
  async firstSweep(sweep: () => Promise<void>, report: (error: unknown) => void): Promise<void> {
    await sweep().catch((error: unknown) => {
      if (mendable(error)) this.#pending = true
      report(error)
    })
  }

  /** A sweep got through: what the dead run left is back in its chats. */
  done(): void {
    this.#pending = false
  }

  /** Undefined once recovered; otherwise the next sweep, rejected if it failed too. */
  recovering(): Promise<void> | undefined {
    return this.#pending ? this.#nextSweep() : undefined
  }

  async #nextSweep(): Promise<void> {
    this.sweeps.kick()
    await this.sweeps.settled()
    if (this.#pending)
      throw new JournalUnavailableError(
        'the messages an earlier run of this instance left are not taken back yet (every sweep since the start failed): a new message would overtake them',
      )
  }
}

/**
 * Whether a retry may mend a sweep's failure: the journal is unavailable (guarded-journal.ts puts every
 * journal failure so), and no botmesh error behind it says that a retry cannot help.
 */
function mendable(error: unknown): boolean {
  if (!(error instanceof JournalUnavailableError) || !error.retryable) return false
  return !(error.cause instanceof BotmeshError && !error.cause.retryable)
}
