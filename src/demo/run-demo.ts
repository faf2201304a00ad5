/**
 * `botmesh demo`: runs the demo bot on the embedded default backend, kills it with SIGKILL in the
 * middle of its work, starts it again with the same instanceId, and sums up what the journals did.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SQLiteStore } from '../backends/sqlite/index.js'
import { INBOX_STATES, OUTBOX_STATES } from '../core/durability/journal/records.js'

export interface DemoOptions {
  /** The SQLite file. @default './data/bot.db' */
  file?: string
  /**
   * Delete what an earlier demo left in the file's demo scope and start over on it. Without it an
   * earlier demo's journal is kept and this one journals to a fresh file beside it (see `chooseDemoFile`).
   * @default false
   */
  startOver?: boolean
  /** When the first run is killed, in ms after the bot started (its first line, not the process's spawn). @default 2500 */
  crashAfterMs?: number
  /** Where the story goes, line by line. */
  print(line: string): void
  /** Where a command to copy goes (the "Try next" hints), whole; by default `print` indented by two spaces. */
  command?(command: string): void
}

export interface DemoSummary {
  file: string
  scope: string
  metrics: Record<string, number>
  inbox: Record<string, number>
  outbox: Record<string, number>
  deadInbox: string[]
  deadOutbox: string[]
}

export const DEMO_SCOPE = 'default/default/demo/default'

/** The demo's journal when none is named. */
export const DEMO_FILE_DEFAULT = './data/bot.db'

/** Where a demo journals. */
export interface DemoFileChoice {
  /** The file this demo journals to: the one asked for, or a fresh one beside it. */
  file: string
  /** Set when the file asked for holds an earlier demo's records: it is kept as it is. */
  kept?: { file: string; records: number }
}

/**
 * Picks the demo's file so that an earlier demo's journal is never deleted unasked (an operator may
 * have re-queued records there): the file asked for, unless its demo scope holds records and
 * `startOver` is not set; then the first free `<name>-2.db`, `<name>-3.db`… beside it.
 */
export async function chooseDemoFile(asked: string, startOver = false): Promise<DemoFileChoice> {
  const records = await earlierDemoRecords(asked)
  if (records === 0 || startOver) return { file: asked }
  const extension = extname(asked)
  const stem = asked.slice(0, asked.length - extension.length)
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${n}${extension}`
    if (!existsSync(resolve(candidate))) return { file: candidate, kept: { file: asked, records } }
  }
}

/** The sentence that says an earlier demo's journal was kept and where this demo journals instead. */
export function keptNote(choice: DemoFileChoice): string | undefined {
  if (!choice.kept) return undefined
  const { file, records } = choice.kept
  return `${file} holds an earlier demo's journal (${records} records): kept as it is; this demo journals to ${choice.file}`
}

/** How many records an earlier demo left in the file's demo scope (0 without the file). */
export async function earlierDemoRecords(file: string): Promise<number> {
  if (!existsSync(resolve(file))) return 0
  const backend = new SQLiteStore({ file: resolve(file) }).durability()
  await backend.start()
  try {
    const journal = backend.journal(DEMO_SCOPE)
    const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
    return [...Object.values(inbox), ...Object.values(outbox)].reduce((sum, n) => sum + n, 0)
  } finally {
    await backend.stop()
  }
}

export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const choice = await chooseDemoFile(options.file ?? DEMO_FILE_DEFAULT, options.startOver)
  const given = choice.file
  const file = resolve(given)
  // Owner only, as the README promises for journal directories: the journal holds users' messages.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  if (options.startOver) await clearDemoScope(file)
  const worker = workerCommand()
  options.print(`botmesh demo: a bot with a simulated channel, journaling to ${file}`)
  const note = keptNote(choice)
  if (note) options.print(note)
  await runWorker(worker, [file, '1'], options.print, options.crashAfterMs ?? 2_500)
  options.print('✖ crash: the bot process was killed with SIGKILL in the middle of its work')
  const { metrics } = await runWorker(worker, [file, '2'], options.print)
  const summary = await summarize(file, metrics)
  options.print('')
  options.print(`inbox:  ${describe(summary.inbox)}`)
  options.print(`outbox: ${describe(summary.outbox)}`)
  options.print(
    `after the restart: replayed ${metrics.inboundReplayed ?? 0}, redeliveries recognised ${metrics.inboundDuplicates ?? 0}, answered from the outbox ${metrics.outboxDeduped ?? 0}, ambiguous ${metrics.outboxAmbiguous ?? 0}`,
  )
  options.print('')
  // Each hint names the backend the demo used, so it works as pasted whatever --backend was.
  const backend = `--backend ${shellWord(`sqlite:${given}`)}`
  const command = options.command ?? ((line: string) => options.print(`  ${line}`))
  options.print('Try next:')
  command(`npx botmesh stats ${backend}`)
  command(`npx botmesh dlq list ${backend}`)
  if (summary.deadInbox[0]) command(`npx botmesh replay ${shellWord(summary.deadInbox[0])} ${backend}`)
  if (summary.deadOutbox[0]) command(`npx botmesh retry ${shellWord(summary.deadOutbox[0])} ${backend}`)
  return summary
}

/** Endless simulated traffic on the demo's file, for the dashboard; `stop()` ends it cleanly. */
export interface LiveTraffic {
  /** Resolves with the live run's metrics once its bot stopped. */
  stop(): Promise<{ metrics: Record<string, number> }>
}

/** Starts the demo bot in its `live` phase (the story's messages again, every `paceMs`) until `stop()`. */
export function startLiveTraffic(file: string, print: (line: string) => void, paceMs = LIVE_PACE_MS): LiveTraffic {
  let child: ChildProcess | undefined
  const done = runWorker(workerCommand(), [resolve(file), 'live', String(paceMs)], print, undefined, (started) => (child = started))
  return {
    stop: () => {
      child?.kill('SIGTERM')
      return done
    },
  }
}

/** The pace of the live traffic after the story: a message every so many ms. */
export const LIVE_PACE_MS = 700

/** Starts the worker; resolves with its summary, or after killing it with SIGKILL `killAfterMs` after the bot started. */
function runWorker(
  command: string[],
  args: string[],
  print: (line: string) => void,
  killAfterMs?: number,
  onStart?: (child: ChildProcess) => void,
): Promise<{ metrics: Record<string, number> }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...command, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    onStart?.(child)
    let metrics: Record<string, number> = {}
    let buffered = ''
    let timer: NodeJS.Timeout | undefined
    // Timed from the bot's first line: a slow process start (a loaded machine) must not let the kill
    // land before the story began.
    const armKill = () => (timer ??= killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs))
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      if (lines.length > 0) armKill()
      for (const line of lines) {
        if (line.startsWith('SUMMARY ')) metrics = (JSON.parse(line.slice(8)) as { metrics: Record<string, number> }).metrics
        else print(line)
      }
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL' || code === 0) resolvePromise({ metrics })
      else reject(new Error(`the demo bot exited with ${signal ?? `code ${code}`}`))
    })
  })
}

/** The worker script: built (dist/demo/worker.js) or, in this repository's tests, the TypeScript source. */
function workerCommand(): string[] {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4; up++) {
    for (const candidate of [join(dir, 'demo', 'worker.js'), join(dir, 'dist', 'demo', 'worker.js')])
      if (existsSync(candidate)) return [candidate]
    const source = join(dir, 'worker.ts')
    if (existsSync(source)) return ['--import', join(dir, '..', '..', 'test-utils', 'ts-loader.mjs'), source]
    dir = dirname(dir)
  }
  throw new Error('cannot find the demo worker (dist/demo/worker.js): run npm run build first')
}

/** Starting over: the demo's own scope is emptied; other scopes of the file are left alone. */
async function clearDemoScope(file: string): Promise<void> {
  if (!existsSync(file)) return
  const backend = new SQLiteStore({ file }).durability()
  await backend.start()
  try {
    const journal = backend.journal(DEMO_SCOPE)
    for (const [kind, states] of [
      ['inbox', INBOX_STATES],
      ['outbox', OUTBOX_STATES],
      ['instances', ['live']],
    ] as const) {
      for (const state of states) while ((await journal.purge(kind, state, Number.MAX_SAFE_INTEGER, 10_000)) > 0);
    }
  } finally {
    await backend.stop()
  }
}

async function summarize(file: string, metrics: Record<string, number>): Promise<DemoSummary> {
  const backend = new SQLiteStore({ file }).durability()
  await backend.start()
  try {
    const journal = backend.journal(DEMO_SCOPE)
    const [inbox, outbox, deadInbox, deadOutbox] = await Promise.all([
      journal.count('inbox'),
      journal.count('outbox'),
      journal.list('inbox', { state: 'dead', limit: 10 }),
      journal.list('outbox', { state: 'dead', limit: 10 }),
    ])
    return {
      file,
      scope: DEMO_SCOPE,
      metrics,
      inbox,
      outbox,
      deadInbox: deadInbox.map((f) => f.record.id),
      deadOutbox: deadOutbox.map((f) => f.record.key),
    }
  } finally {
    await backend.stop()
  }
}

function describe(counts: Record<string, number>): string {
  return (
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ') || 'empty'
  )
}

/** A word a POSIX shell reads back as is: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}
