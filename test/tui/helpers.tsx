/**
 * Helpers of the dashboard's tests: a seeded SQLite journal in a temp dir, the dashboard mounted
 * with ink-testing-library on a real connection to it, terminal sizes, key sequences, and reading
 * the backend to check what an action changed.
 */
import { join } from 'node:path'
import { render } from 'ink-testing-library'
import { afterEach } from 'vitest'
import { openBackend, parseBackendUrl } from '../../src/operator/gateway/open.js'
import type { RecordKind, RecordOf } from '../../src/core/durability/journal/records.js'
import { Dashboard } from '../../src/tui/views/Dashboard.js'
import { connect, type DashboardConnection } from '../../src/operator/dashboard-connection.js'
import { themeFor } from '../../src/tui/views/theme.js'
import type { Snapshot } from '../../src/tui/io/snapshot.js'
import type { StoryFeed } from '../../src/tui/io/story-feed.js'
import { waitFor } from '../../test-utils/wait.js'
import { SCOPE, seedJournal } from '../fixtures/tui/seed.js'
import { useTempDirs as useTempDirsUnder } from '../../test-utils/lifecycle.js'

/** Keys as a terminal sends them. */
export const KEYS = {
  enter: '\r',
  escape: '\x1b',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  tab: '\t',
  shiftTab: '\x1b[Z',
  pageDown: '\x1b[6~',
  pageUp: '\x1b[5~',
  backspace: '\x7f',
  ctrlC: '\x03',
} as const

/** A temp dir per call, removed after the file's tests. */
export const useTempDirs = (): (() => string) => useTempDirsUnder('botmesh-tui-')

/** A new SQLite journal seeded with records in every state. */
export async function seededSqlite(dir: string, options: Parameters<typeof seedJournal>[1] = {}): Promise<string> {
  const url = `sqlite:${join(dir, `bot-${Math.random().toString(36).slice(2)}.db`)}`
  await seedJournal(url, options)
  return url
}

/** A mounted dashboard. */
export interface MountedDashboard {
  frame(): string
  /** Types keys (each string is one write, as a terminal would send it). */
  press(...keys: string[]): void
  /** Waits until the frame satisfies `check`; returns the frame. */
  until(check: (frame: string) => boolean, what: string, timeoutMs?: number): Promise<string>
  resize(columns: number, rows: number): void
  /** Whether the app exited (q, Ctrl-C). */
  exited(): boolean
  /** The last snapshot the dashboard showed, once it stopped (undefined before). */
  shown(): Snapshot | undefined
  connection: DashboardConnection
  close(): Promise<void>
}

const mounted: MountedDashboard[] = []
afterEach(async () => {
  // A test that failed half-way still stops its polling and closes its backend.
  for (const dashboard of mounted.splice(0)) await dashboard.close()
})

/** Mounts the dashboard on `url` with ink-testing-library, at 80×24 unless told. */
export function mountDashboard(
  url: string,
  options: {
    scope?: string
    bot?: string
    refreshMs?: number
    env?: NodeJS.ProcessEnv
    connection?: DashboardConnection
    story?: StoryFeed
  } = {},
): MountedDashboard {
  const connection = options.connection ?? connect(parseBackendUrl(url), { connectTimeoutMs: 2_000 })
  let stopped: Promise<void> | undefined
  let exited = false
  let shown: Snapshot | undefined
  const scope = 'scope' in options ? options.scope : options.bot === undefined ? SCOPE : undefined
  const instance = render(
    <Dashboard
      connection={connection}
      refreshMs={options.refreshMs ?? 100}
      scope={scope}
      bot={options.bot}
      theme={themeFor(options.env ?? {})}
      story={options.story}
      onStopped={(promise, last) => ((stopped = promise), (exited = true), (shown = last))}
    />,
  )
  const resize = (columns: number, rows: number) => {
    Object.defineProperty(instance.stdout, 'columns', { value: columns, configurable: true })
    Object.defineProperty(instance.stdout, 'rows', { value: rows, configurable: true })
    instance.stdout.emit('resize')
  }
  resize(80, 24)
  let closed = false
  const dashboard: MountedDashboard = {
    frame: () => instance.lastFrame() ?? '',
    press: (...keys) => {
      for (const key of keys) instance.stdin.write(key)
    },
    until: async (check, what, timeoutMs = 10_000) => {
      try {
        return await waitFor(() => (check(dashboard.frame()) ? dashboard.frame() : undefined), { timeoutMs, intervalMs: 10, message: what })
      } catch (error) {
        throw new Error(`${(error as Error).message}; the last frame:\n${dashboard.frame()}`)
      }
    },
    resize,
    exited: () => exited,
    shown: () => shown,
    connection,
    close: async () => {
      if (closed) return
      closed = true
      instance.unmount()
      await stopped
      await connection.close()
    },
  }
  mounted.push(dashboard)
  return dashboard
}

/** Reads a record straight from the backend (to check what an action did). */
export async function readRecord<K extends RecordKind>(url: string, kind: K, id: string, scope = SCOPE): Promise<RecordOf[K] | undefined> {
  const opened = await openBackend(url)
  try {
    const [found] = await opened.backend.journal(scope).read(kind, [id])
    return found?.record
  } finally {
    await opened.close()
  }
}

/** The lines of a frame. */
export function linesOf(frame: string): string[] {
  return frame.split('\n')
}

/** A frame's lines joined by one space: what a wrapped line says, whole (wrapping breaks at a space). */
export function joined(frame: string): string {
  return linesOf(frame)
    .map((line) => line.trimEnd())
    .join(' ')
}

/** The rows of a panel in a frame: the lines after its title, up to the next title. */
export function panelRows(frame: string, title: string): string[] {
  const lines = linesOf(frame)
  const start = lines.findIndex((line) => line.includes(title))
  if (start === -1) return []
  const rows: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (/^[▶ ] \d /.test(line) || line.trim() === '' || /^r\/R|^⏎|^⇥/.test(line)) break
    rows.push(line)
  }
  return rows
}
