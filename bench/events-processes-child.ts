/** A process of bench/events-processes.ts: appends `count` events, or claims and completes records until none is left (prints how many). */
import { SharedFileEventJournal } from '../src/events/index.js'

const args = JSON.parse(process.argv[2]!) as { path: string; appendLog: boolean; mode: 'append' | 'drain'; count?: number; name: string }
const journal = await SharedFileEventJournal.open(args.path, { appendLog: args.appendLog ? { fsync: false } : false })
if (args.mode === 'append') {
  for (let n = 0; n < args.count!; n++)
    await journal.append({ id: `${args.name}-${n}`, eventType: 'job', payload: { text: 'a message of ordinary length, '.repeat(12) } })
} else {
  let completed = 0
  for (;;) {
    const claimed = await journal.claim({ owner: args.name, leaseMs: 60_000, limit: 1 })
    if (claimed.length === 0) break
    for (const record of claimed) await journal.complete({ id: record.id, token: record.lease!.token })
    completed += claimed.length
  }
  process.stdout.write(`${completed}\n`)
}
await journal.close()
