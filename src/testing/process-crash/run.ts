/**
 * The real-process crash test: a child process runs the workload bot on a backend and is killed
 * with SIGKILL in the middle of a handler, a provider call or a journal write (the seed picks which
 * and when); a new child with the same instanceId then recovers on the same storage. The verdict
 * comes from the oracle file (what the channel accepted), as in the crash matrix.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import { tally, violations, type Tally } from '../crash-matrix/checker.js'
import { journalProblems, WORKLOAD_SCOPE } from '../crash-matrix/journal-check.js'
import { expectedSends } from '../crash-matrix/workload.js'
import { pick, seededRandom } from '../crash-matrix/random.js'
import type { ChildConfig } from './child.js'
import { runMarkedChild } from './marked-child.js'
import { createOracle, readOracle } from './oracle-file.js'

/** Where a process crash lands: in a handler, during a send, or right after a journal write. */
export type KillMoment = 'handler' | 'send' | 'write'

/** One process-crash run: a bot in a child process killed with SIGKILL at a drawn moment, then restarted on the same storage. */
export interface ProcessCrashOptions {
  /** A module the child imports, exporting `createBackend(arg)` and `createStore(arg)`. */
  backendModule: string
  /** What the child passes to `createBackend` and `createStore` (JSON). */
  backendArg: unknown
  /** Opens the same storage in this process, to read the journal afterwards. */
  openBackend(): Promise<DurabilityBackend>
  /** A folder for the oracle file. */
  dir: string
  /** Draws the workload and the kill: the same seed, the same run. */
  seed: number
  /** `outbox.onAmbiguous` of the bot. */
  policy: 'skip' | 'resend'
  /** Where the kill lands; drawn from the seed when omitted. */
  killOn?: KillMoment
}

/** What a process-crash run found: the tally of messages and sends, and any broken promise of the contract in `problems`. */
export interface ProcessCrashResult extends Tally {
  /** The seed it ran with. */
  seed: number
  /** The `outbox.onAmbiguous` it ran with. */
  policy: 'skip' | 'resend'
  /** Where the kill landed. */
  killOn: KillMoment
  /** Which occurrence of the marker the kill followed; killed false when the run finished first. */
  nth: number
  /** Whether the child was killed (false: it finished first). */
  killed: boolean
  /** Whether no promise of the contract was broken. */
  ok: boolean
  /** Each broken promise, in a sentence. */
  problems: string[]
}

/** A child that neither finishes nor gets killed within this time fails the run. */
const CHILD_TIMEOUT_MS = 60_000

/** Runs a bot in a child process, kills it with SIGKILL at a moment drawn from `seed`, restarts it on the same storage and checks the journal and the sends against the contract. */
export async function runProcessCrash(options: ProcessCrashOptions): Promise<ProcessCrashResult> {
  const random = seededRandom(options.seed)
  const killOn = options.killOn ?? (['handler', 'send', 'write'] as const)[pick(random, 0, 2)]!
  const nth = pick(random, 1, killOn === 'write' ? 40 : 12)
  const pauseMs = pick(random, 2, 15)
  const oracleFile = join(options.dir, `oracle-${options.seed}-${process.pid}-${Date.now()}.ndjson`)
  createOracle(oracleFile)
  const config: ChildConfig = {
    backendModule: options.backendModule,
    backendArg: options.backendArg,
    oracleFile,
    policy: options.policy,
    pauseMs,
  }
  const problems: string[] = []
  const first = await runChild(config, { kind: killOn, nth })
  if (first === 'timeout') problems.push('the first process neither finished nor was killed in time')
  const second = await runChild(config)
  if (second !== 'idle') problems.push(`the restarted process did not finish: ${second}`)
  const lines = readOracle(oracleFile)
  const ambiguous = new Map<string, number>()
  for (const line of lines) if ('ambiguous' in line) ambiguous.set(line.ambiguous, (ambiguous.get(line.ambiguous) ?? 0) + 1)
  if (problems.length === 0) {
    const backend = await options.openBackend()
    problems.push(...(await journalProblems(backend, WORKLOAD_SCOPE, ambiguous)))
  }
  const accepted = lines.flatMap((line) => ('sent' in line ? [line.sent] : []))
  const counts = tally(expectedSends(), accepted, ambiguous)
  problems.push(...violations(counts, options.policy))
  return {
    seed: options.seed,
    policy: options.policy,
    killOn,
    nth,
    killed: first === 'killed',
    ...counts,
    ok: problems.length === 0,
    problems,
  }
}

/** Runs the child; with `kill`, sends SIGKILL right after the nth marker of that kind. */
async function runChild(config: ChildConfig, kill?: { kind: KillMoment; nth: number }): Promise<'idle' | 'killed' | 'timeout' | string> {
  let seen = 0
  const end = await runMarkedChild([...childCommand(), JSON.stringify(config)], CHILD_TIMEOUT_MS, (line, killChild) => {
    if (kill && line === `MARK ${kill.kind}` && ++seen === kill.nth) killChild()
  })
  if (end.timedOut) return 'timeout'
  if (end.signal === 'SIGKILL') return 'killed'
  if (end.code === 0 && end.idle) return 'idle'
  return `exit ${end.signal ?? end.code}: ${end.stderr.trim()}`
}

/** The child script: built (dist) or, in this repository's tests, the TypeScript source through the loader. */
function childCommand(): string[] {
  const here = dirname(fileURLToPath(import.meta.url))
  const built = join(here, 'child.js')
  if (existsSync(built)) return [built]
  return ['--import', join(here, '..', '..', '..', 'test-utils', 'ts-loader.mjs'), join(here, 'child.ts')]
}
