/**
 * `runDashboard`: opens a backend URL and runs the dashboard on a terminal until the operator quits
 * (q, Ctrl-C), the caller's signal aborts, or it fails; then it stops polling, closes the backend
 * and gives the terminal back as it was. `botmesh dashboard` and `botmesh demo` both call it.
 */
import { render } from 'ink'
import { connect, dashboardTarget, UsageError, type ConnectionOptions, type KeyRing } from '../operator/dashboard-connection.js'
import { Dashboard } from './views/Dashboard.js'
import { DASHBOARD_LIMITS } from './limits.js'
import { enterAlternateScreen } from './io/terminal-screen.js'
import { themeFor } from './views/theme.js'
import type { Snapshot } from './io/snapshot.js'
import type { StoryFeed } from './io/story-feed.js'

/** Signals that close the dashboard as quitting does. */
const QUIT_SIGNALS = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const

/** Options of `runDashboard`. */
export interface RunDashboardOptions {
  /** A backend URL as `--backend` takes it (sqlite:./data/bot.db, redis://…, postgres://…, file:…). */
  backendUrl: string
  /** The scope to show; it may hold no records yet (a bot about to start). */
  scope?: string
  /** Or the scope of this botId. With neither, the only scope there is, or the operator picks one. */
  bot?: string
  /** How often to read the backend. @default 1000 */
  refreshMs?: number
  /** How the backend is opened (connect timeout, …), as the CLI's configuration resolved it. */
  open?: Omit<ConnectionOptions, 'access'>
  /** The keys sealed content is shown with (--keys or BOTMESH_ENCRYPTION_KEYS); without them it shows as "(encrypted, key k1)". */
  keys?: KeyRing
  /** NO_COLOR is read from here. @default process.env */
  env?: NodeJS.ProcessEnv
  /** @default process.stdin */
  stdin?: NodeJS.ReadStream
  /** @default process.stdout */
  stdout?: NodeJS.WriteStream
  /** @default process.stderr */
  stderr?: NodeJS.WriteStream
  /** Aborting it closes the dashboard as quitting does. */
  signal?: AbortSignal
  /** A story told beside the dashboard (`botmesh demo`'s steps), on its message line. */
  story?: StoryFeed
}

/** What the dashboard showed last, for a caller that sums up after it (`botmesh demo`). */
export interface DashboardExit {
  /** The records per state it showed last; undefined when nothing was read. */
  counts: Snapshot['counts'] | undefined
}

/** Runs the dashboard; resolves once it was quit and everything it opened is closed, with what it showed last. */
export async function runDashboard(options: RunDashboardOptions): Promise<DashboardExit> {
  const refreshMs = options.refreshMs ?? DASHBOARD_LIMITS.refreshDefaultMs
  if (!Number.isFinite(refreshMs) || refreshMs < DASHBOARD_LIMITS.refreshMinMs) {
    throw new UsageError(`the refresh period must be at least ${DASHBOARD_LIMITS.refreshMinMs}ms; got ${refreshMs}`)
  }
  // A bad URL is refused before the screen changes.
  const target = dashboardTarget(options.backendUrl)
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new UsageError(
      'botmesh dashboard needs a terminal (stdin and stdout must be a TTY); in scripts use botmesh stats --watch or --json',
    )
  }
  if (options.signal?.aborted) return { counts: undefined }
  const connection = connect(target, options.open, options.keys)
  const restoreScreen = enterAlternateScreen(stdout)
  let stopped: Promise<void> = Promise.resolve()
  let shown: Snapshot | undefined
  try {
    const app = render(
      <Dashboard
        connection={connection}
        refreshMs={refreshMs}
        scope={options.scope}
        bot={options.bot}
        theme={themeFor(options.env ?? process.env)}
        story={options.story}
        onStopped={(promise, last) => ((stopped = promise), (shown = last))}
      />,
      { stdin, stdout, stderr: options.stderr ?? process.stderr, exitOnCtrlC: false },
    )
    const quit = () => app.unmount()
    options.signal?.addEventListener('abort', quit, { once: true })
    // A terminal that went away (EIO) ends the dashboard instead of crashing the process.
    stdout.on('error', quit)
    // A signal quits as q does, so the terminal is given back. With a listener of ours, Ink's
    // signal-exit handler unmounts without killing the process before our cleanup ran.
    for (const signal of QUIT_SIGNALS) process.on(signal, quit)
    try {
      await app.waitUntilExit()
    } finally {
      options.signal?.removeEventListener('abort', quit)
      stdout.off('error', quit)
      for (const signal of QUIT_SIGNALS) process.off(signal, quit)
      app.unmount()
    }
  } finally {
    await stopped
    await connection.close()
    restoreScreen()
  }
  return { counts: shown?.counts }
}
