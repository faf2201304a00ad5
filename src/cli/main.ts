/**
 * The `botmesh` command: builds the program on this process's streams, runs it, and exits with
 * the code its outcome stands for. The only place in the CLI that calls `process.exit`; like
 * graphile-worker's cli, everything opened is closed by the actions' own try/finally before this
 * returns.
 */
import { readFileSync } from 'node:fs'
import { CommanderError } from 'commander'
import { exitCodeOf, EXIT_CODES, type ExitCode } from './exit-codes.js'
import { Output } from './output.js'
import { buildProgram } from './program.js'

/** Commander's codes that are not failures. */
const COMMANDER_DONE = new Set(['commander.helpDisplayed', 'commander.version'])

/** Runs the CLI on `argv` (without node and the script) and resolves to its exit code. */
export async function main(argv: string[]): Promise<ExitCode> {
  const out = new Output({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, process.env)
  const interrupt = new AbortController()
  const onInterrupt = () => {
    if (interrupt.signal.aborted) process.exit(EXIT_CODES.failed)
    out.note('interrupted: finishing the current step (Ctrl-C again to quit at once)')
    interrupt.abort()
  }
  process.on('SIGINT', onInterrupt)
  // A reader that went away (`botmesh export | head`) is not an error: stop quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_CODES.done)
  })
  try {
    const program = buildProgram({ out, env: process.env, stdin: process.stdin, signal: interrupt.signal, version: packageVersion() })
    await program.parseAsync(argv, { from: 'user' })
    return EXIT_CODES.done
  } catch (error) {
    if (error instanceof CommanderError) return COMMANDER_DONE.has(error.code) ? EXIT_CODES.done : EXIT_CODES.badInput
    out.error(error)
    // An error that is not botmesh's own is a bug: BOTMESH_DEBUG=1 shows where it came from.
    if (process.env.BOTMESH_DEBUG && error instanceof Error && error.stack) out.note(error.stack)
    return exitCodeOf(error)
  } finally {
    process.off('SIGINT', onInterrupt)
  }
}

/**
 * Runs the CLI and exits with its code once stdout and stderr have drained: on a pipe both are
 * asynchronous, and exiting at once would cut the tail of an export or the error line.
 */
export async function run(argv: string[]): Promise<never> {
  const code = await main(argv)
  const drained = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()))
  await Promise.all([drained(process.stdout), drained(process.stderr)])
  process.exit(code)
}

/** The version in package.json (two levels up from both src/cli and dist/cli). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  } catch {
    return 'unknown'
  }
}
