/** `botmesh inbox list|show` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { registerJournal } from './journal.js'

export function registerInbox(program: Command, cli: Cli): void {
  registerJournal(program, cli, 'inbox', {
    noun: 'admitted inbound messages and interactions',
    idName: 'id',
    listExamples: [
      'botmesh inbox list --state failed,dead',
      'botmesh inbox list --chat 5511999 --since 2h',
      'botmesh inbox list --error timeout --json',
      'botmesh inbox list --search "refund" --state dead   # by what the message says',
    ],
    showExamples: ['botmesh inbox show wamid.HBgM', 'botmesh inbox show wamid.HBgM --json'],
  })
}
