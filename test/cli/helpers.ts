/**
 * Running the built `botmesh` binary as a child process, as an operator or a script would: its
 * exit code, stdout and stderr, with a clean environment (no BOTMESH_BACKEND or NO_COLOR leaking
 * in from the machine). A prompt is answered through `script`, which gives the child a terminal.
 */
import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { vi } from 'vitest'
import { useTempDirs as useTempDirsUnder } from '../../test-utils/lifecycle.js'

// A test here runs several processes one after another; on a loaded machine that takes a while.
// A hang is still caught: each child is killed after RUN_TIMEOUT_MS.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'botmesh.js')

/** What a run of the binary left. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  /** Extra environment (set a value to undefined to remove it). */
  env?: Record<string, string | undefined>
  /** Written to stdin, which is then closed. */
  input?: string
  cwd?: string
  /** Killed (and the test fails on its code) after this long. @default 60000 */
  timeoutMs?: number
}

/** The size of the terminal `botmeshOnTerminal` gives the child. */
export interface TerminalSize {
  /** @default 80 */
  columns?: number
  /** @default 24 */
  rows?: number
}

/** A run that does not end within this is killed: the CLI must never hang. */
const RUN_TIMEOUT_MS = 60_000

/** Runs `node bin/botmesh.js ...args`. */
export function botmesh(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return run(process.execPath, [BIN, ...args], options)
}

/** Runs `node <script> ...args` (a path from the repository's root), as `botmesh` runs the binary. */
export function nodeScript(script: string, args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return run(process.execPath, [join(ROOT, script), ...args], options)
}

/**
 * Runs the binary on a terminal of `columns` × `rows` (a pseudo-terminal by util-linux `script`,
 * sized with `stty`), typing `input`; stdout and stderr arrive merged, lines ending in \r\n.
 */
export function botmeshOnTerminal(args: readonly string[], options: CliOptions & TerminalSize = {}): Promise<CliRun> {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(' ')
  const size = `stty cols ${options.columns ?? 80} rows ${options.rows ?? 24}`
  return run('script', ['-qec', `${size}; exec ${command}`, '/dev/null'], options)
}

/** The one JSON document a --json run printed on stdout. */
export function jsonOf<T = Record<string, unknown>>(result: CliRun): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}

function run(command: string, args: string[], options: CliOptions): Promise<CliRun> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    BOTMESH_BACKEND: undefined,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    ...options.env,
  }
  for (const name of Object.keys(env)) if (env[name] === undefined) delete env[name]
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? RUN_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolveRun({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** A temp dir per call, removed after the file's tests. */
export const useTempDirs = (): (() => string) => useTempDirsUnder('botmesh-cli-')

/** ANSI colour and weight sequences (not the cursor controls a progress line uses). */
export const COLOUR = /\x1b\[(?:\d+;)*\d*m/
