/**
 * A child process of a crash test: node with the given arguments, each line it prints handed to the
 * test as it comes (markers such as `MARK send`, so the test can SIGKILL it right after one), and
 * how it ended. A child still running after `timeoutMs` is SIGKILLed and reported as timed out.
 */
import { spawn } from 'node:child_process'

/** How a child ended. */
export interface ChildEnd {
  /** Its exit code (null when a signal ended it). */
  code: number | null
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null
  /** Whether it printed `IDLE` (it finished its work). */
  idle: boolean
  /** Whether it ran past the time it was given. */
  timedOut: boolean
  /** The last 4,000 characters of its standard error. */
  stderr: string
}

/** Runs `node <args>`; `onLine` gets each line of its standard output, and `kill` to SIGKILL it there. */
export function runMarkedChild(
  args: readonly string[],
  timeoutMs: number,
  onLine: (line: string, kill: () => void) => void,
): Promise<ChildEnd> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const kill = () => child.kill('SIGKILL')
    let idle = false
    let timedOut = false
    let stderr = ''
    let buffered = ''
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, timeoutMs)
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000)
    })
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        if (line === 'IDLE') idle = true
        onLine(line, kill)
      }
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, idle, timedOut, stderr })
    })
  })
}
