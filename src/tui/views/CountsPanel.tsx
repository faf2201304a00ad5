/**
 * Inbox and outbox: records per state (from the index counts), the oldest pending record's age and
 * the purge backlog (done / sent records past the retention, not yet purged), what comes in per
 * second (the instances' heartbeat metrics) and what goes out (done / sent, from the counts between
 * refreshes), with a sparkline of the latter over the last minutes. Two lines per journal, or one
 * on a short terminal.
 */
import { Box, Text } from 'ink'
import { INBOX_STATES, OUTBOX_STATES } from '../../operator/stats.js'
import { compact, duration, fit, rate, sparkline } from './format.js'
import type { RateSample } from '../state/rates.js'
import type { Theme, Tone } from './theme.js'

export interface CountsPanelProps {
  counts: { inbox: Record<string, number>; outbox: Record<string, number> } | undefined
  oldestPendingMs: { inbox: number | null; outbox: number | null } | undefined
  /** Undefined before the first refresh; null with retention 0 (nothing is purged). */
  purgeBacklog: { inbox: number; outbox: number; capped: boolean } | null | undefined
  history: RateSample[]
  /** 4: two lines per journal; 2: one. */
  lines: number
  width: number
  theme: Theme
}

/** A state whose records need an operator's eye gets a colour when it is not empty. */
const STATE_TONES: Record<string, Tone> = { dead: 'error', failed: 'warn', unknown: 'accent', processing: 'ok', sending: 'ok' }

export function CountsPanel({ counts, oldestPendingMs, purgeBacklog, history, lines, width, theme }: CountsPanelProps) {
  const last = history.at(-1)
  const journals = [
    {
      name: 'inbox',
      states: INBOX_STATES,
      counts: counts?.inbox,
      oldest: oldestPendingMs?.inbox,
      backlog: purgeBacklog?.inbox,
      rates: `in ${rate(last?.inboxIn)}  done ${rate(last?.inboxDone)}`,
      series: history.map((sample) => sample.inboxDone),
    },
    {
      name: 'outbox',
      states: OUTBOX_STATES,
      counts: counts?.outbox,
      oldest: oldestPendingMs?.outbox,
      backlog: purgeBacklog?.outbox,
      rates: `in ${rate(last?.outboxIn)}  sent ${rate(last?.outboxSent)}`,
      series: history.map((sample) => sample.outboxSent),
    },
  ]
  return (
    <Box flexDirection="column" width={width} height={lines} overflow="hidden">
      {journals.map((journal) => {
        const oldest = journal.oldest === null || journal.oldest === undefined ? '' : `  oldest pending ${duration(journal.oldest)}`
        const backlog = journal.backlog === undefined ? '' : `  purge backlog ${purgeBacklog?.capped ? '≥' : ''}${compact(journal.backlog)}`
        const rateLine = `${journal.rates}  `
        const spark = sparkline(journal.series, Math.max(0, width - 8 - rateLine.length))
        return (
          <Box key={journal.name} flexDirection="column">
            <Text wrap="truncate-end">
              <Text bold color={theme.tone('title')}>
                {journal.name.padEnd(8)}
              </Text>
              {journal.states.map((state) => {
                const n = journal.counts?.[state]
                const tone = n ? STATE_TONES[state] : undefined
                return (
                  <Text key={state} color={tone ? theme.tone(tone) : undefined} bold={tone !== undefined}>
                    {`${state} ${n === undefined ? '-' : compact(n)}  `}
                  </Text>
                )
              })}
              <Text color={theme.tone('muted')}>{oldest}</Text>
              <Text color={theme.tone('muted')}>{backlog}</Text>
              {lines < 4 ? <Text color={theme.tone('muted')}>{`  ${journal.rates}`}</Text> : null}
            </Text>
            {lines >= 4 ? (
              <Text wrap="truncate-end">
                {' '.repeat(8)}
                {rateLine}
                <Text color={theme.tone('ok')}>{fit(spark, Math.max(0, width - 8 - rateLine.length))}</Text>
              </Text>
            ) : null}
          </Box>
        )
      })}
    </Box>
  )
}
