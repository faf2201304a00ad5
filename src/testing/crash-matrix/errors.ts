/** Why a crash case ended without a verdict of its own; each message names the case's seed so it can be replayed. */
import { BotmeshError, ERROR_CODES } from '../../core/errors/errors.js'

/** The case did not finish within `caseTimeoutMs`. */
export class CrashCaseTimeoutError extends BotmeshError {
  constructor(seed: number, limitMs: number, step: string) {
    super(ERROR_CODES.CRASH_CASE_TIMEOUT, `the case (seed ${seed}) did not finish within ${limitMs} ms; it was at: ${step}`)
  }
}

/** The run was interrupted (Ctrl-C) while the case ran. */
export class CrashCaseInterruptedError extends BotmeshError {
  constructor(seed: number, step: string) {
    super(ERROR_CODES.CRASH_CASE_INTERRUPTED, `the case (seed ${seed}) was interrupted at: ${step}`)
  }
}

/** Removing the case's throwaway data failed or took longer than `cleanupTimeoutMs`: some may be left. */
export class CrashCaseCleanupError extends BotmeshError {
  constructor(seed: number, detail: string, cause?: unknown) {
    super(ERROR_CODES.CRASH_CASE_CLEANUP, `the throwaway data of the case (seed ${seed}) may be left behind: ${detail}`, { cause })
  }
}
