/** `botmesh inbox list|show` and `botmesh outbox list|show`: the same two subcommands for each journal. */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { parseCount } from '../config.js'
import { examples, filtersFrom, listOptions, pageFrom, statesFrom, type FilterFlags } from '../options.js'
import { lanesOf, listRecords, type RecordFilters, type RecordPage, type WorkKind } from '../../operator/records.js'
import { budgetOf, showRecord } from '../../operator/show.js'
import { withJournal } from '../../operator/session.js'
import { pageNotes, recordPageView, shownView } from '../views/records.js'

/** What the help of a journal's commands says. */
interface JournalHelp {
  noun: string
  idName: string
  listExamples: string[]
  showExamples: string[]
}

export function registerJournal(program: Command, cli: Cli, kind: WorkKind, help: JournalHelp): void {
  const journal = program
    .command(kind)
    .description(`the ${kind}: ${help.noun}`)
    .addHelpText('after', examples(...help.listExamples.slice(0, 1), ...help.showExamples.slice(0, 1)))
  listOptions(journal.command('list').description(`list ${help.noun}, oldest change first, by state, chat, age or error`), true)
    .addHelpText('after', examples(...help.listExamples))
    .action(async (options: FilterFlags & { state?: string; limit?: string; after?: string }) => {
      await withJournal(cli.config(), 'read', async ({ journal, backend, unreadable }) => {
        const now = await backend.now()
        const filters = filtersFrom(options, now)
        const page = await listRecords(journal, lanesOf([kind], statesFrom(options.state)), filters, pageFrom(options))
        printPage(cli, withUnsearched(page, filters, unreadable), now, false)
      })
    })
  showCommand(journal.command('show'), cli, [kind], help.idName, help.showExamples)
}

/** A page of records: its view, or with -o jsonl a record a line and the page's notes on stderr. */
export function printPage(cli: Cli, page: RecordPage, now: number, withKind: boolean): void {
  cli.out.result(page, recordPageView(now, withKind), (shown) => shown.records)
  if (cli.out.format === 'jsonl') for (const note of pageNotes(page)) cli.out.note(note)
}

/**
 * A page of a --search with how many records it could not read: their content is sealed under a
 * key not given (each reported once by the session's sealed backend).
 */
export function withUnsearched(page: RecordPage, filters: RecordFilters, unreadable: readonly unknown[]): RecordPage {
  return filters.search ? { ...page, unsearched: unreadable.length } : page
}

/** `show <id>`: the whole record and why it is not running now; shared by `botmesh show`. */
export function showCommand(command: Command, cli: Cli, kinds: WorkKind[], idName: string, lines: string[]): Command {
  return command
    .argument(`<${idName}>`)
    .description(`show the whole record: payload, attempts, lease, last error, audit, and in words why it is not running now`)
    .option('--max-attempts <n>', "the bot's inbox.maxAttempts, for 'attempt n of m' (default: what a live instance reports)")
    .option('--retries <n>', "the bot's outbox.retries, for 'provider call n of m' (default: what a live instance reports)")
    .addHelpText('after', examples(...lines))
    .action(async (id: string, options: { maxAttempts?: string; retries?: string }) => {
      const flags = {
        ...(options.maxAttempts !== undefined && { inboxMaxAttempts: parseCount(options.maxAttempts, '--max-attempts') }),
        ...(options.retries !== undefined && { outboxCalls: parseCount(options.retries, '--retries', { min: 0 }) + 1 }),
      }
      await withJournal(cli.config(), 'read', async ({ journal, backend }) => {
        const now = await backend.now()
        const budget = await budgetOf(journal, now, flags)
        cli.out.result(await showRecord(journal, id, kinds, now, budget), shownView(now))
      })
    })
}
