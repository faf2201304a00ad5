/**
 * `failOpen`: a message the inbox could not journal runs anyway, as a journaled one would. Its
 * `ctx.ref.id` is the inbox record id it would have had (`<provider>:<chat>:<event id>`) and its
 * sends get the derived keys `<record id>:<n>`, so a redelivery once the journal is back finds them
 * in the outbox and nothing replies twice. A send the outbox cannot journal either goes out
 * unjournaled (`outboxBypassed`, with a warning) rather than not at all: the channel was already
 * told the message was received (durable-sender.ts). Admission keeps the id in its memory, so a
 * redelivery in this process is recognised even when nothing could be journaled.
 */
import type { MessageRunDeps } from '../run/message-run.js'
import { SendOrigin } from '../run/send-origin.js'
import type { InboundEvent } from '../../provider/provider.js'

/** Routes, logs and runs `event` under `recordId`, then waits for its sends. */
export async function runFailOpen({ engine, runner }: MessageRunDeps, event: InboundEvent, recordId: string): Promise<void> {
  // A replay as far as keys go: an earlier delivery (on another replica, say) may have journaled its sends.
  const origin = new SendOrigin(engine, recordId, true, true)
  const handled = await runner.handle({ id: recordId, journaled: null, live: event, replay: false }, origin)
  for (let settled = 0; settled < origin.pending.length;) {
    const batch = origin.pending.slice(settled)
    settled = origin.pending.length
    await Promise.allSettled(batch)
  }
  // No completion write takes the sent marks along: they are written alone.
  if (origin.marks.busy) await origin.marks.drain()
  if (handled.type === 'ran' && handled.unrecorded !== undefined) engine.events.error(handled.unrecorded)
}
