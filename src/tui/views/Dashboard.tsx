/**
 * The dashboard's root: the one component with hooks. It wires the live state (`useDashboard`),
 * the terminal's size and the keys to the props-only `Screen`.
 */
import { useApp, useInput, useStdout } from 'ink'
import type { DashboardConnection } from '../../operator/dashboard-connection.js'
import type { Snapshot } from '../io/snapshot.js'
import type { StoryFeed } from '../io/story-feed.js'
import { useDashboard } from '../io/use-dashboard.js'
import { useTerminalSize } from '../io/use-terminal-size.js'
import type { Theme } from './theme.js'
import { Screen } from './Screen.js'

export interface DashboardProps {
  connection: DashboardConnection
  refreshMs: number
  /** --scope: this scope (it may hold no records yet). */
  scope?: string
  /** --bot: the scope of this botId. */
  bot?: string
  theme: Theme
  /** A story told beside the dashboard (the demo's steps), on the message line when it is free. */
  story?: StoryFeed
  /** Receives the promise of the background work's end, once the dashboard unmounted, and the last snapshot it showed. */
  onStopped?(stopped: Promise<void>, shown: Snapshot | undefined): void
}

export function Dashboard({ connection, refreshMs, scope, bot, theme, story, onStopped }: DashboardProps) {
  const { exit } = useApp()
  const { state, press } = useDashboard({ connection, refreshMs, scope, bot, story, onQuit: () => exit(), onStopped })
  // On a real terminal the dashboard owns the (alternate) screen: a resize redraws it from the top.
  const size = useTerminalSize({ clearOnResize: useStdout().stdout.isTTY === true })
  useInput(press)
  return <Screen state={state} size={size} theme={theme} />
}
