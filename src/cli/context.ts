/**
 * What every command's action gets: the output, the environment, a signal that aborts on Ctrl-C,
 * and the configuration of the run (resolved once, before the action, from the global flags).
 */
import type { CliConfig } from './config.js'
import type { Output } from './output.js'

export interface Cli {
  readonly out: Output
  readonly env: NodeJS.ProcessEnv
  /** Where `import -` reads from. */
  readonly stdin: NodeJS.ReadableStream
  /** Aborted on the first Ctrl-C: long work stops at its next step and reports what it did. */
  readonly signal: AbortSignal
  /** The resolved configuration of this run (set before any action runs). */
  config(): CliConfig
}
