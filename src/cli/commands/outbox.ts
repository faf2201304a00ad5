/** `botmesh outbox list|show` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { registerJournal } from './journal.js'

export function registerOutbox(program: Command, cli: Cli): void {
  registerJournal(program, cli, 'outbox', {
    noun: 'sends journaled under their idempotency keys',
    idName: 'key',
    listExamples: [
      'botmesh outbox list --state unknown',
      'botmesh outbox list --state failed --error RATE_LIMITED',
      'botmesh outbox list --limit 100 --after <cursor>',
      'botmesh outbox list --search "your code is" --keys keys.json   # an encrypted journal',
    ],
    showExamples: ['botmesh outbox show invoice:42', 'botmesh outbox show "wamid.HBgM:1#2"'],
  })
}
