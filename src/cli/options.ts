/**
 * The flags several commands share (list filters, paging, the bulk and destructive flags), how
 * they are declared, and how their values become the services' option objects.
 */
import type { Command } from 'commander'
import wrapAnsi from 'wrap-ansi'
import type { OperatorChange } from '../core/durability/operations/operations.js'
import { parseChoice, parseCount, parseRate, parseSince } from './config.js'
import { UsageError } from '../operator/errors.js'
import type { Pace } from '../operator/bulk.js'
import { LIST_LIMITS, type RecordFilters, type WorkKind } from '../operator/records.js'
import type { Selection } from '../operator/replay.js'
import type { Cli } from './context.js'

export const KINDS: readonly WorkKind[] = ['inbox', 'outbox']

/** Parsed values of the filter flags. */
export interface FilterFlags {
  chat?: string
  since?: string
  error?: string
  errorCode?: string
  errorGroup?: string
  search?: string
}

/** Declares --chat, --since and --error. */
export function filterOptions(command: Command): Command {
  return command
    .option('--chat <chatId>', 'only records of this chat')
    .option('--since <when>', 'only records changed since a duration ago (30m, 2h, 7d) or a date (2024-05-01T10:00Z)')
    .option('--error <text>', "only records whose last error's message or code contains this (case-insensitive)")
    .option('--error-code <code>', 'only records whose last error has exactly this code (e.g. RATE_LIMITED)')
    .option('--error-group <id>', 'only records of this group of `dlq list --group-by error`')
}

/** Declares the filters, --state, --limit and --after of a listing. */
export function listOptions(command: Command, states: boolean): Command {
  if (states) command.option('--state <states>', 'only these states, comma-separated (e.g. dead,failed)')
  return filterOptions(command)
    .option(
      '--search <text>',
      "only records whose content holds this text, ignoring case: a message's text, captions, button labels, a send's content",
    )
    .option('--limit <n>', `records per page (at most ${LIST_LIMITS.pageMax})`, String(LIST_LIMITS.pageDefault))
    .option('--after <cursor>', 'the page after this cursor (printed as "more:" / "next" by the previous page)')
}

/** Declares the flags of destructive and bulk commands. */
export function changeOptions(command: Command): Command {
  return command
    .option('--limit <n>', 'touch at most this many records (bulk forms)')
    .option('--rate <n>', 'at most this many records per second (bulk forms), so a provider is not flooded')
    .option('--dry-run', 'list what would be touched and change nothing')
    .option('-y, --yes', 'do not ask (needed when not on a terminal)')
    .option('--reason <text>', 'why, kept on each changed record with who and when')
}

/** The services' filters from the flags. */
export function filtersFrom(flags: FilterFlags, now: number): RecordFilters {
  return {
    ...(flags.chat !== undefined && { chat: flags.chat }),
    ...(flags.since !== undefined && { since: parseSince(flags.since, now) }),
    ...(flags.error !== undefined && { error: flags.error }),
    ...(flags.errorCode !== undefined && { errorCode: flags.errorCode }),
    ...(flags.errorGroup !== undefined && { errorGroup: flags.errorGroup }),
    ...(flags.search !== undefined && { search: searchFrom(flags.search) }),
  }
}

/** The --search text: at least one character, at most `LIST_LIMITS.searchLengthMax`. */
function searchFrom(text: string): string {
  if (text.trim() === '') throw new UsageError('--search needs a text to look for')
  if (text.length > LIST_LIMITS.searchLengthMax) throw new UsageError(`--search takes at most ${LIST_LIMITS.searchLengthMax} characters`)
  return text
}

/** The --state flag as a list (or undefined for every state). */
export function statesFrom(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((state) => state.trim())
        .filter(Boolean)
}

/** The paging of a listing. */
export function pageFrom(flags: { limit?: string; after?: string }): { limit: number; after?: string } {
  return {
    limit: parseCount(flags.limit ?? String(LIST_LIMITS.pageDefault), '--limit', { max: LIST_LIMITS.pageMax }),
    ...(flags.after && { after: flags.after }),
  }
}

/** The --kind flag: one kind, or both. */
export function kindsFrom(value: string | undefined): WorkKind[] {
  return value === undefined ? [...KINDS] : [parseChoice(value, KINDS, '--kind')]
}

/** Named ids, or the states of the --all-* flags given, with the filters; never both, never neither. */
export function selectionFrom(
  ids: string[],
  states: string[],
  flags: FilterFlags & { limit?: string },
  now: number,
  what: string,
): Selection {
  const filtered = [flags.chat, flags.since, flags.error, flags.errorCode, flags.errorGroup].some((flag) => flag !== undefined)
  if (ids.length > 0 && states.length > 0) throw new UsageError(`name ${what}s or use the --all-… flags, not both`)
  if (ids.length > 0) {
    if (filtered)
      throw new UsageError(
        '--chat, --since, --error, --error-code and --error-group filter the --all-… forms; they do not apply to named records',
      )
    return { ids }
  }
  if (states.length === 0) throw new UsageError(`name at least one ${what}, or use a bulk form (see --help)`)
  return { states, filters: filtersFrom(flags, now), ...(flags.limit !== undefined && { limit: parseCount(flags.limit, '--limit') }) }
}

/** Who changes records and why (the reason is kept on each record). */
export function changeFrom(flags: { reason?: string }, at: number): OperatorChange {
  return { at, ...(flags.reason !== undefined && { reason: flags.reason }) }
}

/** The pace of a bulk command: its rate, progress on a terminal, Ctrl-C. */
export function paceFrom(cli: Cli, flags: { rate?: string }, label: string, total: number): Pace & { finish(): void } {
  const progress = cli.out.progress(label, total)
  return {
    ...(flags.rate !== undefined && { rate: parseRate(flags.rate, '--rate') }),
    signal: cli.signal,
    onProgress: (done, _total, id) => progress.update(done, id),
    finish: () => progress.done(),
  }
}

/** The width the help's own texts wrap at: commander wraps its lists there too. */
const HELP_WIDTH = 80
/** Where a term's description starts in the help's own lists. */
const HELP_TERM_WIDTH = 34

/** Terms and their descriptions, wrapped under each other (a term too long for its column gets a line of its own). */
export function helpList(title: string, items: [term: string, description: string][]): string {
  const indent = ' '.repeat(2 + HELP_TERM_WIDTH + 2)
  const lines = items.flatMap(([term, description]) => {
    const wrapped = wrapAnsi(description, HELP_WIDTH - indent.length, { hard: true }).split('\n')
    const head = term.length <= HELP_TERM_WIDTH ? [`  ${term.padEnd(HELP_TERM_WIDTH)}  ${wrapped.shift()}`] : [`  ${term}`]
    return [...head, ...wrapped.map((line) => `${indent}${line}`)]
  })
  return `\n${title}:\n${lines.join('\n')}\n`
}

/** A paragraph of a command's --help, wrapped for an 80-column terminal. */
export function helpParagraph(text: string): string {
  return `\n${wrapAnsi(text.trim().replace(/\s*\n\s*/g, ' '), HELP_WIDTH, { hard: true })}\n`
}

/** The "Examples:" section of a command's --help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`
}
