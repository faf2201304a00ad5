/**
 * Every key, and what the markers mean, wrapped at the width; it covers the panels until a key other
 * than ↑ ↓ is pressed. Taller than the screen (80×24), it scrolls by its key entries and says so.
 */
import { Box, Text } from 'ink'
import { fit, wrap, wrapField } from './format.js'
import { KEY_HELP } from '../state/key-help.js'
import type { Theme } from './theme.js'

export interface HelpScreenProps {
  /** The first key entry shown. */
  offset: number
  height: number
  width: number
  theme: Theme
}

const LEGEND = [
  '› the selected row    ! a lease past its expiry (the next sweep reclaims it)',
  '✖ an instance whose heartbeat stopped (gone)    ● a live instance',
  'Actions go through the same services as botmesh replay / retry / discard, and leave an audit entry.',
]

/** The help's lines from key entry `offset` on, wrapped, not cut: what a key does stays under its text. */
export function helpLinesFrom(offset: number, width: number): string[] {
  const keyWidth = Math.max(...KEY_HELP.map(([keys]) => keys.length)) + 2
  return [
    ...KEY_HELP.slice(offset).flatMap(([keys, what]) => wrapField(`${keys.padEnd(keyWidth)}${what}`, width, keyWidth)),
    '',
    ...LEGEND.flatMap((line) => wrap(line, width)),
  ]
}

export function HelpScreen({ offset, height, width, theme }: HelpScreenProps) {
  const lines = helpLinesFrom(offset, width)
  const room = Math.max(0, height - 1)
  // Past the screen, its last line says that more follows, and how to reach it.
  const shown = lines.length > room ? [...lines.slice(0, Math.max(0, room - 1)), '↓ more: ↑↓ jk scroll'] : lines
  const title = offset > 0 ? `Keys (${offset} above: ↑ k)` : 'Keys'
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold color={theme.tone('focus')}>
        {fit(title, width)}
      </Text>
      {shown.map((line, index) => (
        <Text key={index} wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
    </Box>
  )
}
