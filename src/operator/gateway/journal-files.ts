/**
 * A journal file read as a file, not opened as a backend (which would refuse damage, or set up a
 * schema): `verify` of a file journal or a SQLite file, and the salvage of a damaged file journal.
 * Which kinds qualify is the capability table's `verifiedAsFile` and `salvage`.
 */
import { capabilitiesOf } from './capabilities.js'
import type { BackendKind, BackendTarget } from './backend-url.js'

/** What verifying a journal file found. */
export interface JournalFileCheck {
  kind: 'file' | 'sqlite'
  ok: boolean
  /** One sentence per problem: file, line and byte offset where there are such things. */
  problems: string[]
  /** What is not damage but an operator should know (a torn last line the next open cuts). */
  notes: string[]
  /** The verifier's own report. */
  report: unknown
}

/** The operator's journal file a target names; undefined for a server, a throwaway instance or memory. */
export function journalPathOf(target: BackendTarget): string | undefined {
  return target.throwaway || !('path' in target) ? undefined : target.path
}

const VERIFIERS: Partial<Record<BackendKind, (path: string) => Promise<JournalFileCheck>>> = {
  file: verifyFileJournal,
  sqlite: verifySqliteFile,
}

const SALVAGERS: Partial<Record<BackendKind, (path: string, out: string) => Promise<unknown>>> = {
  file: async (path, out) => (await import('../../backends/file/index.js')).salvageJournal(path, out),
}

/** Verifies the journal file a target names; undefined when the target is not verified as a file. */
export async function verifyJournalFile(target: BackendTarget): Promise<JournalFileCheck | undefined> {
  const path = journalPathOf(target)
  const verifier = VERIFIERS[target.kind]
  if (!capabilitiesOf(target).verifiedAsFile || path === undefined || !verifier) return undefined
  return verifier(path)
}

/** Writes what is readable of a damaged file journal into `out`; undefined when the target cannot be salvaged. */
export async function salvageJournalFile(target: BackendTarget, out: string): Promise<unknown> {
  const path = journalPathOf(target)
  const salvager = SALVAGERS[target.kind]
  if (!capabilitiesOf(target).salvage || path === undefined || !salvager) return undefined
  return salvager(path, out)
}

async function verifyFileJournal(path: string): Promise<JournalFileCheck> {
  const { verifyJournal } = await import('../../backends/file/index.js')
  const report = await verifyJournal(path)
  const problems: string[] = []
  for (const file of [report.snapshot, report.log]) {
    // The code is the one open() refuses the file with, so an operator can match the two.
    if (file.damage)
      problems.push(
        `${file.file}: damaged at line ${file.damage.line} (byte offset ${file.damage.offset}) ${file.damage.code}: ${file.damage.detail}`,
      )
  }
  if (!report.snapshot.exists && !report.log.exists) problems.push(`${path} does not exist`)
  // A crash mid-append leaves it; open() cuts it and keeps every line before it, so it is no damage.
  const torn = report.log.tornTail
  const notes = torn
    ? [
        `${report.log.file}: the last line is torn at byte offset ${torn.offset} (${torn.bytes} bytes of a write a crash cut short): not damage; ` +
          'the next open that writes cuts it and replays every line before it',
      ]
    : []
  return { kind: 'file', ok: problems.length === 0, problems, notes, report }
}

async function verifySqliteFile(path: string): Promise<JournalFileCheck> {
  const { verifySqlite } = await import('../../backends/sqlite/index.js')
  const report = await verifySqlite(path)
  return { kind: 'sqlite', ok: report.ok, problems: report.problems, notes: [], report }
}
