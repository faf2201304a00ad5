/**
 * The help bar, two lines: what acts here (the focused panel's verbs, or the open overlay's keys),
 * then how to move. `?` shows every key. A narrow terminal wraps each line between keys.
 */
import { Box, Text } from 'ink'
import { wrapItems } from './format.js'
import { PANELS, type PanelId } from '../state/panels.js'
import type { DashboardState } from '../state/reduce.js'
import type { Theme } from './theme.js'

export interface HelpBarProps {
  overlay: DashboardState['overlay']['type']
  focus: PanelId
  /** The panel a detail was opened from. */
  detailPanel: PanelId | undefined
  paused: boolean
  width: number
  theme: Theme
}

export function HelpBar(props: HelpBarProps) {
  const { width, theme } = props
  const [first, second] = helpLines(props)
  return (
    <Box flexDirection="column" width={width} height={first.length + second.length}>
      {first.map((line, index) => (
        <Text key={`a${index}`} wrap="truncate-end" color={theme.tone('accent')}>
          {line || ' '}
        </Text>
      ))}
      {second.map((line, index) => (
        <Text key={`b${index}`} wrap="truncate-end" color={theme.tone('muted')}>
          {line || ' '}
        </Text>
      ))}
    </Box>
  )
}

/** The help bar's two lines, each wrapped at the width between keys (two spaces apart). */
export function helpLines({ overlay, focus, detailPanel, paused, width }: Omit<HelpBarProps, 'theme'>): [string[], string[]] {
  const [first, second] = keysFor(overlay, focus, detailPanel, paused)
  return [wrapItems(first.split('  '), width), wrapItems(second.split('  '), width)]
}

const MOVE = `⇥ ←→ 1-${PANELS.length} panel  ↑↓ jk row  pgdn pgup page  ? all keys  q quit`

/** The help bar's two lines. */
export function keysFor(
  overlay: DashboardState['overlay']['type'],
  focus: PanelId,
  detailPanel: PanelId | undefined,
  paused: boolean,
): [string, string] {
  switch (overlay) {
    case 'confirm':
      return ['type why (kept on each record)  enter confirm  esc cancel', '']
    case 'running':
      return ['esc stop after the current record', '']
    case 'filter':
      return ['type the text  enter apply  esc cancel  backspace erase', 'matches ids, chats, errors, owners, hosts (case ignored)']
    case 'help':
      return ['↑↓ jk scroll  any other key closes the help', '']
    case 'report':
      return ['e by error  w retry queue  ↑↓ jk scroll  esc back', '']
    case 'scopes':
      return ['enter switch to the scope  r read again  esc back', '↑↓ jk choose  q quit']
    case 'detail':
      return [[...actionKeys(detailPanel ?? focus, false), 'esc back'].join('  '), '↑↓ jk pgdn pgup scroll  q back']
    case 'none':
      return [[...actionKeys(focus, true), '⏎ open', '/ filter', paused ? 'p resume screen' : 'p pause screen', 's scope'].join('  '), MOVE]
  }
}

function actionKeys(panel: PanelId, all: boolean): string[] {
  if (panel === 'inboxDead') return all ? ['r/R replay one/all'] : ['r replay']
  // "one/all" once for both pairs: the line fits 80 columns with "p pause screen".
  if (panel === 'outboxDead' || panel === 'unknown') return all ? ['r/R retry', 'x/X discard one/all'] : ['r retry', 'x discard']
  return []
}
