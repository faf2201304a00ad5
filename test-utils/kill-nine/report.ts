/**
 * What a failed kill -9 run prints, for the engine's owner to reproduce it: the seed and the command
 * that replays its plan, where each kill landed, and for each message a problem names its history at
 * the channel (deliveries, acknowledgement, every copy of its reply, ambiguity reports), its chat's
 * sends in the order the channel received them, and its inbox and outbox records as the journal
 * holds them after the run (read only here, for the report: the verdict never asks the journal).
 */
import type { SharedStorage } from '../../test/backends/shared-targets.js'
import { KILL_NINE_BOT_ID } from '../../test/fixtures/kill-nine/protocol.js'
import type { ChannelLog } from './channel-log.js'
import type { LandedKill } from './run.js'
import type { KillNineVerdict } from './verdict.js'

const SCOPE = `default/default/${KILL_NINE_BOT_ID}/default`
/** Suspects reported in full, at most: the first ones say what happened. */
const SUSPECTS_REPORTED_MAX = 8

export async function failureReport(run: {
  storage: SharedStorage
  channel: ChannelLog
  verdict: KillNineVerdict
  landed: LandedKill[]
  seed: number
}): Promise<string> {
  const { channel, verdict, landed, seed } = run
  const { messages } = channel.workload
  const suspects = verdict.suspects.slice(0, SUSPECTS_REPORTED_MAX)
  const records = await journalRecords(
    run.storage,
    suspects.map((index) => messages[index]!),
  )
  const lines = [
    `seed ${seed}; replay its plan: KILL_NINE_SEED=${seed} npx vitest run test/backends/kill-nine.test.ts`,
    ...verdict.problems.map((problem) => `problem: ${problem}`),
    `kills: ${landed.map((kill) => `#${kill.incarnation} ${kill.phase} (at ${kill.replies} replies)`).join(', ')}`,
  ]
  for (const [n, index] of suspects.entries()) {
    const message = messages[index]!
    const history = channel.histories[index]!
    const copies = channel.sends.filter((send) => channel.answered(send) === index)
    lines.push(
      `${message.event.id} (key ${message.key}): delivered ${history.deliveries.map((d) => `#${d.incarnation}@${d.tick} ${d.outcome ?? '-'}`).join(', ')}; ` +
        `acknowledged @${history.ackTick ?? 'never'}; reply copies ${copies.map((send) => `#${send.incarnation}@${send.tick}`).join(', ') || 'none'}; ` +
        `taken back (reported ambiguous) ${
          channel.takenBack
            .filter((report) => report.key === message.key)
            .map((report) => `@${report.tick}`)
            .join(', ') || 'never'
        }`,
      `  its chat's sends: ${channel.sends
        .filter((send) => send.chatId === message.event.chatId)
        .map((send) => `#${send.incarnation}@${send.tick} ${send.text}`)
        .join(' | ')}`,
      `  inbox record: ${records[n]?.inbox ?? '(none)'}`,
      `  outbox record: ${records[n]?.outbox ?? '(none)'}`,
    )
  }
  return lines.join('\n')
}

/** The inbox and outbox records of `suspects`, compact; a sentence instead when the journal cannot be read. */
async function journalRecords(
  storage: SharedStorage,
  suspects: { event: { id: string; chatId: string }; key: string }[],
): Promise<{ inbox: string; outbox: string }[]> {
  const backend = storage.open()
  try {
    await backend.start()
    const journal = backend.journal(SCOPE)
    const inbox = await journal.read(
      'inbox',
      suspects.map((suspect) => suspect.key.slice(0, -':1'.length)),
    )
    const outbox = await journal.read(
      'outbox',
      suspects.map((suspect) => suspect.key),
    )
    return suspects.map((_, n) => ({ inbox: compact(inbox[n]), outbox: compact(outbox[n]) }))
  } catch (error) {
    const why = `(the journal could not be read: ${error instanceof Error ? error.message : String(error)})`
    return suspects.map(() => ({ inbox: why, outbox: why }))
  } finally {
    await backend.stop().catch(() => undefined)
  }
}

/** A record without its payload, event and fingerprint: its state, runs, lease, token, place in its chat and error. */
function compact(found: { record: object; version: unknown } | undefined): string {
  if (!found) return '(none)'
  const { payload, event, fingerprint, ...rest } = found.record as Record<string, unknown>
  ;(void payload, event, fingerprint)
  return JSON.stringify({ ...rest, version: found.version })
}
