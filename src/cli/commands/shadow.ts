/** `botmesh shadow --bot <module> [--chat] [--since] [--state] [--limit] [--id…] [--sends dead]` */
import type { Command } from 'commander'
import { INBOX_STATES } from '../../core/durability/journal/records.js'
import { SHADOW_LIMITS } from '../../testing/shadow/index.js'
import { parseChoice, parseCount, parseSince } from '../config.js'
import type { Cli } from '../context.js'
import { UsageError } from '../../operator/errors.js'
import { ReportedFailure } from '../errors.js'
import { examples, helpParagraph, statesFrom } from '../options.js'
import { loadBotModule, shadowRun, type ShadowRequest } from '../../operator/shadow.js'
import { withJournal } from '../../operator/session.js'
import { shadowView } from '../views/shadow.js'

/** The flags of `botmesh shadow` (`--bot` is read from the global flags: the program takes it wherever it stands). */
interface ShadowFlags {
  chat?: string
  since?: string
  state?: string
  limit?: string
  id?: string[]
  sends?: string
}

export function registerShadow(program: Command, cli: Cli): void {
  program
    .command('shadow')
    .description(
      'run recorded messages through new code and compare its replies with the recorded ones, sending and writing nothing; exit 1 when any reply changed or the code threw',
    )
    .option(
      '--bot <module>',
      'the bot module: its default export takes a Bot and registers the handlers (here --bot is not a scope: use --scope)',
    )
    .option('--chat <chatId>', "only this chat's messages")
    .option('--since <when>', 'only messages received since a duration ago (30m, 2h, 7d) or a date (2024-05-01T10:00Z)')
    .option('--state <states>', `inbound states to run, comma-separated (default done; dead: would the dead letters now succeed?)`)
    .option('--limit <n>', `at most this many messages, the most recent (default ${SHADOW_LIMITS.messagesDefault})`)
    .option('--id <id...>', 'only these inbound records')
    .option('--sends <state>', 'dead: run the messages whose sends are dead-lettered')
    .addHelpText(
      'after',
      helpParagraph(`Each chat's messages run in their recorded order through a fresh bot built by the module, with a
        provider that takes the sends and sends nothing; the bot's store (a SQLite backend's file) is read as it is now and its writes
        stay in memory. Handlers that call outside services call them for real unless the module stubs them.`),
    )
    .addHelpText(
      'after',
      examples(
        'botmesh shadow --bot ./dist/bot.js --backend sqlite:./data/bot.db',
        'botmesh shadow --bot ./dist/bot.js --since 24h --limit 2000 --json > shadow.json',
        'botmesh shadow --bot ./dist/bot.js --state dead   # which dead letters would now succeed',
        'botmesh shadow --bot ./dist/bot.js --sends dead --chat 5511999',
      ),
    )
    .action(async (flags: ShadowFlags, command: Command) => {
      const module = command.optsWithGlobals<{ bot?: string }>().bot
      if (module === undefined) throw new UsageError('name the bot module with --bot <module> (see botmesh shadow --help)')
      const request = requestOf(flags, Date.now())
      const define = await loadBotModule(module)
      let progress: ReturnType<Cli['out']['progress']> | undefined
      const onProgress = (done: number, total: number) => (progress ??= cli.out.progress('shadow', total)).update(done)
      const report = await withJournal(cli.config(), 'read', (session) => shadowRun(session, { ...request, define, onProgress }))
      progress?.done()
      cli.out.result(
        report,
        (data) => shadowView(data, { dead: request.deadSends === true || request.states?.includes('dead') === true }),
        (data) => data.messages,
      )
      const { changed, failed } = report.summary
      if (changed + failed > 0) throw new ReportedFailure(`${changed} message(s) changed and ${failed} failed under the new code`)
    })
}

function requestOf(flags: ShadowFlags, now: number): Omit<ShadowRequest, 'define'> {
  const deadSends = flags.sends !== undefined && parseChoice(flags.sends, ['dead'] as const, '--sends') === 'dead'
  if (deadSends && (flags.id !== undefined || flags.state !== undefined))
    throw new UsageError('--sends dead picks the messages itself: give it without --id and --state')
  return {
    ...(flags.chat !== undefined && { chatId: flags.chat }),
    ...(flags.since !== undefined && { since: parseSince(flags.since, now) }),
    ...(flags.state !== undefined && { states: statesFrom(flags.state)!.map((state) => parseChoice(state, INBOX_STATES, '--state')) }),
    ...(flags.limit !== undefined && { limit: parseCount(flags.limit, '--limit', { max: SHADOW_LIMITS.messagesMax }) }),
    ...(flags.id !== undefined && { ids: flags.id }),
    ...(deadSends && { deadSends }),
  }
}
