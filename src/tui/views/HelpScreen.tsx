/** Every key, and what the markers mean, wrapped at the width; it covers the panels until a key is pressed. */
import { Box, Text } from 'ink'
import { fit, wrap, wrapField } from './format.js'
import { KEY_HELP } from '../io/keys.js'
import type { Theme } from './theme.js'

export interface HelpScreenProps {
  height: number
  width: number
  theme: Theme
}

const LEGEND = [
  '› the selected row    ! a lease past its expiry (the next sweep reclaims it)',
  '✖ an instance whose heartbeat stopped (gone)    ● a live instance',
  'Actions go through the same services as botmesh replay / retry / discard, and leave an audit entry.',
]

export function HelpScreen({ height, width, theme }: HelpScreenProps) {
  const keyWidth = Math.max(...KEY_HELP.map(([keys]) => keys.length)) + 2
  // Wrapped, not cut: what a key does stays under its text, the legend's lines wrap whole.
  const lines = [
    ...KEY_HELP.flatMap(([keys, what]) => wrapField(`${keys.padEnd(keyWidth)}${what}`, width, keyWidth)),
    '',
    ...LEGEND.flatMap((line) => wrap(line, width)),
  ]
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold color={theme.tone('focus')}>
        {fit('Keys', width)}
      </Text>
      {lines.slice(0, Math.max(0, height - 1)).map((line, index) => (
        <Text key={index} wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
    </Box>
  )
}
