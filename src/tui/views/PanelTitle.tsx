/** A panel's title line: its number (the key that focuses it), its name, and a summary. */
import { Text } from 'ink'
import type { Theme } from './theme.js'
import { fit } from './format.js'

export interface PanelTitleProps {
  number: number
  title: string
  summary: string
  focused: boolean
  width: number
  theme: Theme
}

export function PanelTitle({ number, title, summary, focused, width, theme }: PanelTitleProps) {
  const head = `${focused ? '▶' : ' '} ${number} ${title}`
  return (
    <Text wrap="truncate-end">
      <Text bold={focused} color={theme.tone(focused ? 'focus' : 'title')}>
        {fit(head, width)}
      </Text>
      <Text color={theme.tone('muted')}>{fit(`  ${summary}`, Math.max(0, width - head.length))}</Text>
    </Text>
  )
}
