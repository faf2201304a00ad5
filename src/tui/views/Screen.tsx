/**
 * The whole screen, from the state and the terminal's size (props only): status and message
 * lines, the counts, the five panels (or the overlay that covers them), the help bar; exactly
 * `rows - 1` lines of at most `columns` characters.
 */
import { Box } from 'ink'
import { countsLines, panelAreaLines } from './layout.js'
import { reportOf } from './report-lines.js'
import { backendNow, type DashboardState } from '../state/reduce.js'
import type { Theme } from './theme.js'
import type { TerminalSize } from '../io/use-terminal-size.js'
import { CountsPanel } from './CountsPanel.js'
import { DetailView } from './DetailView.js'
import { HelpBar, helpLines, type HelpBarProps } from './HelpBar.js'
import { HelpScreen } from './HelpScreen.js'
import { MessageLine, messageLines, type MessageLineProps } from './MessageLine.js'
import { Panels } from './Panels.js'
import { ReportView } from './ReportView.js'
import { ScopePicker } from './ScopePicker.js'
import { StatusLine } from './StatusLine.js'

export interface ScreenProps {
  state: DashboardState
  size: TerminalSize
  theme: Theme
}

export function Screen({ state, size, theme }: ScreenProps) {
  const width = Math.max(20, size.columns)
  const rows = Math.max(8, size.rows)
  const { snapshot, overlay } = state
  const { failure, notice, filter, story, lastRefreshAt, clock } = state
  const message: MessageLineProps = { overlay, failure, notice, filter, story, lastRefreshAt, clock, width, theme }
  const help: HelpBarProps = {
    overlay: overlay.type,
    focus: state.focus,
    detailPanel: overlay.type === 'detail' ? overlay.target.panel : undefined,
    paused: state.paused,
    width,
    theme,
  }
  // The message and the help wrap at a narrow width; the panels give up the lines they take.
  const chrome = 1 + messageLines(message).length + helpLines(help).flat().length
  const area = panelAreaLines(rows, chrome)
  return (
    <Box flexDirection="column" width={width} height={rows - 1} overflow="hidden">
      <StatusLine
        label={state.label}
        scope={state.scope}
        refreshMs={state.refreshMs}
        paused={state.paused}
        lastRefresh={state.lastRefreshAt !== undefined && snapshot ? { at: state.lastRefreshAt, tookMs: snapshot.tookMs } : undefined}
        failing={state.failure !== undefined}
        width={width}
        theme={theme}
      />
      <MessageLine {...message} />
      <CountsPanel
        counts={snapshot?.counts}
        oldestPendingMs={snapshot?.oldestPendingMs}
        purgeBacklog={snapshot?.purgeBacklog}
        history={state.history}
        lines={countsLines(rows)}
        width={width}
        theme={theme}
      />
      <Box flexDirection="column" height={area} overflow="hidden">
        {overlay.type === 'detail' ? (
          <DetailView detail={overlay} height={area} width={width} theme={theme} />
        ) : overlay.type === 'report' ? (
          <ReportView
            report={reportOf(overlay.report, snapshot, backendNow(state))}
            offset={overlay.offset}
            height={area}
            width={width}
            theme={theme}
          />
        ) : overlay.type === 'help' ? (
          <HelpScreen offset={overlay.offset} height={area} width={width} theme={theme} />
        ) : overlay.type === 'scopes' ? (
          <ScopePicker picker={overlay} current={state.scope} height={area} width={width} theme={theme} />
        ) : (
          <Panels state={state} height={area} width={width} theme={theme} />
        )}
      </Box>
      <HelpBar {...help} />
    </Box>
  )
}
