/**
 * `verify`: read a journal and report damage, changing nothing. A file journal is read the way
 * open() would (damage with file, line and byte offset; a torn tail); a SQLite file gets SQLite's
 * integrity check and botmesh's schema and count checks; a server journal (Redis, PostgreSQL) is
 * (and an events journal, which open() has read back whole) walked record by record through the index, checking each record's shape and that the index
 * counts agree. `salvage` writes what is readable of a damaged file journal into a new file.
 */
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import { INBOX_STATES, OUTBOX_STATES, recordKey, type RecordKind } from '../core/durability/journal/records.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import { capabilitiesOf, salvageJournalFile, verifyJournalFile, type BackendTarget } from './gateway/open.js'

/** What `verify` found, whatever the backend. */
export interface VerifyOutcome {
  backend: string
  kind: string
  ok: boolean
  /** One sentence per problem: file, line and byte offset where there are such things. */
  problems: string[]
  /** What is not damage but worth knowing (a torn last line the next open cuts). */
  notes: string[]
  /** The backend's own report (the file or SQLite verifier's), for --json. */
  report: unknown
}

/** Problems a server walk lists at most (the rest are counted). */
export const VERIFY_PROBLEMS_MAX = 100
/** Records the server walk reads per round trip. */
const VERIFY_PAGE = 1_000

/** Whether the target is a journal file (file:, sqlite:) that verify reads without opening it as a backend. */
export function isJournalFile(target: BackendTarget): boolean {
  return capabilitiesOf(target).verifiedAsFile
}

/** Verifies a file or SQLite journal without opening it as a backend (which would refuse damage or set up a schema). */
export async function verifyPath(target: BackendTarget): Promise<VerifyOutcome> {
  const checked = await verifyJournalFile(target)
  if (!checked) throw new BotmeshError(ERROR_CODES.NOT_APPLICABLE, `${target.label} is not a journal file`)
  return {
    backend: target.label,
    kind: checked.kind,
    ok: checked.ok,
    problems: checked.problems,
    notes: checked.notes,
    report: checked.report,
  }
}

/** Walks every scope's records through the index: each record well-formed and in the state its index says; counts agree. */
export async function verifyRecords(backend: DurabilityBackend, label: string): Promise<VerifyOutcome> {
  const problems: string[] = []
  let extra = 0
  const report = (problem: string) => (problems.length < VERIFY_PROBLEMS_MAX ? problems.push(problem) : extra++)
  const scopes = await backend.scopes()
  let records = 0
  for (const scope of scopes) {
    const journal = backend.journal(scope)
    for (const [kind, states] of [
      ['inbox', INBOX_STATES],
      ['outbox', OUTBOX_STATES],
      ['instances', ['live']],
    ] as [RecordKind, readonly string[]][]) {
      const counts = await journal.count(kind)
      for (const state of states) {
        let listed = 0
        let after: { stateTime: number; key: string } | undefined
        for (;;) {
          const page = await journal.list(kind, { state, after, limit: VERIFY_PAGE })
          for (const found of page) {
            const problem = shapeProblem(kind, state, found.record as unknown as Record<string, unknown>)
            if (problem) report(`${scope} ${kind}: ${problem}`)
            const key = String(recordKey(kind, found.record))
            after = {
              stateTime: Number((found.record as unknown as Record<string, unknown>)[kind === 'instances' ? 'startedAt' : 'updatedAt']),
              key,
            }
          }
          listed += page.length
          if (page.length < VERIFY_PAGE) break
        }
        records += listed
        if ((counts[state] ?? 0) !== listed)
          report(`${scope} ${kind}: the index counts ${counts[state] ?? 0} ${state} record(s), the index lists ${listed}`)
      }
      for (const state of Object.keys(counts))
        if (!states.includes(state) && counts[state]! > 0)
          report(`${scope} ${kind}: ${counts[state]} record(s) in unknown state "${state}"`)
    }
  }
  if (extra > 0) problems.push(`… and ${extra} more problem(s)`)
  return { backend: label, kind: backend.kind, ok: problems.length === 0, problems, notes: [], report: { scopes: scopes.length, records } }
}

function shapeProblem(kind: RecordKind, state: string, record: Record<string, unknown>): string | undefined {
  const id = recordKey(kind, record as never) as unknown
  if (typeof id !== 'string' || id === '')
    return `a record without its ${kind === 'inbox' ? 'id' : kind === 'outbox' ? 'key' : 'instanceId'}: ${JSON.stringify(record).slice(0, 120)}`
  if (kind === 'instances') return typeof record.expiresAt === 'number' ? undefined : `instance "${id}" has no expiresAt`
  if (record.state !== state) return `"${id}" is listed under ${state} but its record says ${String(record.state)}`
  for (const field of ['attempts', 'fencingToken', 'createdAt', 'updatedAt']) {
    if (typeof record[field] !== 'number') return `"${id}" has no number ${field}`
  }
  if (typeof record.chatId !== 'string') return `"${id}" has no chatId`
  return undefined
}

/** The salvage of a damaged file journal into a new file (the damaged files are left as they are). */
export async function salvage(target: BackendTarget, out: string): Promise<unknown> {
  const report = await salvageJournalFile(target, out)
  if (report === undefined)
    throw new BotmeshError(ERROR_CODES.NOT_APPLICABLE, `--salvage works on file journals (file:<path>); ${target.label} is ${target.kind}`)
  return report
}
