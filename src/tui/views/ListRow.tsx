/** One row of a panel: the selection marker, the text, reverse video when selected in the focused panel. */
import { Text } from 'ink'
import type { Theme, Tone } from './theme.js'
import { fit } from './format.js'

export interface ListRowProps {
  text: string
  selected: boolean
  focused: boolean
  width: number
  theme: Theme
  /** A colour for the whole row (a warning, a gone instance). */
  tone?: Tone
}

export function ListRow({ text, selected, focused, width, theme, tone }: ListRowProps) {
  const marker = selected ? (focused ? '›' : '·') : ' '
  return (
    <Text wrap="truncate-end" inverse={selected && focused} color={tone ? theme.tone(tone) : undefined} dimColor={!focused && !tone}>
      {fit(`${marker} ${text}`, width).padEnd(selected && focused ? width : 0)}
    </Text>
  )
}
