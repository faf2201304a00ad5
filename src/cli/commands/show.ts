/** `botmesh show <id|key>`: an inbox record or an outbox send, whichever has the id. */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { showCommand } from './journal.js'

export function registerShow(program: Command, cli: Cli): void {
  showCommand(program.command('show'), cli, ['inbox', 'outbox'], 'id|key', [
    'botmesh show wamid.HBgM',
    'botmesh show reminder:1 --json',
    'botmesh show wamid.HBgM:1 --retries 3',
  ])
}
