/**
 * The demo's journal files: which file a demo journals to (an earlier demo's is never deleted
 * unasked), starting over on one, and what a demo left there (its counts and dead letters).
 */
import { existsSync } from 'node:fs'
import { extname, resolve } from 'node:path'
import { SQLiteStore } from '../backends/sqlite/index.js'
import { INBOX_STATES, OUTBOX_STATES } from '../core/durability/journal/records.js'
import type { Journal } from '../core/durability/journal/backend.js'

export const DEMO_SCOPE = 'default/default/demo/default'

/** The demo's journal when none is named. */
export const DEMO_FILE_DEFAULT = './data/bot.db'

/** Where a demo journals. */
export interface DemoFileChoice {
  /** The file this demo journals to: the one asked for, or a fresh one beside it. */
  file: string
  /** Set when the file asked for holds an earlier demo's records: it is kept as it is. */
  kept?: { file: string; records: number }
}

/** Records per state of the demo's scope: what the dashboard's counts show. */
export interface DemoCounts {
  inbox: Record<string, number>
  outbox: Record<string, number>
}

/**
 * Picks the demo's file so that an earlier demo's journal is never deleted unasked (an operator may
 * have re-queued records there): the file asked for, unless its demo scope holds records and
 * `startOver` is not set; then the first free `<name>-2.db`, `<name>-3.db`… beside it.
 */
export async function chooseDemoFile(asked: string, startOver = false): Promise<DemoFileChoice> {
  const records = await earlierDemoRecords(asked)
  if (records === 0 || startOver) return { file: asked }
  const extension = extname(asked)
  const stem = asked.slice(0, asked.length - extension.length)
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${n}${extension}`
    if (!existsSync(resolve(candidate))) return { file: candidate, kept: { file: asked, records } }
  }
}

/** The sentence that says an earlier demo's journal was kept and where this demo journals instead. */
export function keptNote(choice: DemoFileChoice): string | undefined {
  if (!choice.kept) return undefined
  const { file, records } = choice.kept
  return `${file} holds an earlier demo's journal (${records} records): kept as it is; this demo journals to ${choice.file}`
}

/** How many records an earlier demo left in the file's demo scope (0 without the file). */
export async function earlierDemoRecords(file: string): Promise<number> {
  if (!existsSync(resolve(file))) return 0
  const { inbox, outbox } = await withDemoJournal(resolve(file), countsOf)
  return [...Object.values(inbox), ...Object.values(outbox)].reduce((sum, n) => sum + n, 0)
}

/** Starting over: the demo's own scope is emptied; other scopes of the file are left alone. */
export async function clearDemoScope(file: string): Promise<void> {
  if (!existsSync(file)) return
  await withDemoJournal(file, async (journal) => {
    for (const [kind, states] of [
      ['inbox', INBOX_STATES],
      ['outbox', OUTBOX_STATES],
      ['instances', ['live']],
    ] as const) {
      for (const state of states) while ((await journal.purge(kind, state, Number.MAX_SAFE_INTEGER, 10_000)) > 0);
    }
  })
}

/** What the demo left in the file: the counts (as the dashboard reads them) and the first dead letters. */
export async function demoJournalNow(file: string): Promise<DemoCounts & { deadInbox: string[]; deadOutbox: string[] }> {
  return withDemoJournal(file, async (journal) => {
    const [counts, deadInbox, deadOutbox] = await Promise.all([
      countsOf(journal),
      journal.list('inbox', { state: 'dead', limit: 10 }),
      journal.list('outbox', { state: 'dead', limit: 10 }),
    ])
    return { ...counts, deadInbox: deadInbox.map((f) => f.record.id), deadOutbox: deadOutbox.map((f) => f.record.key) }
  })
}

/** The counts of the demo's scope in the file: from the index counts, as the dashboard's. */
export function demoCounts(file: string): Promise<DemoCounts> {
  return withDemoJournal(file, countsOf)
}

async function countsOf(journal: Journal): Promise<DemoCounts> {
  const [inbox, outbox] = await Promise.all([journal.count('inbox'), journal.count('outbox')])
  return { inbox, outbox }
}

async function withDemoJournal<T>(file: string, use: (journal: Journal) => Promise<T>): Promise<T> {
  const backend = new SQLiteStore({ file }).durability()
  await backend.start()
  try {
    return await use(backend.journal(DEMO_SCOPE))
  } finally {
    await backend.stop()
  }
}
