/**
 * `import`: load an export (NDJSON) into a backend. A first pass checks every line and whether any
 * record already exists; only when nothing is wrong does a second pass write, in batches, each
 * record a compare-and-set: an insert (version 0), or with `overwrite` a replace of the version
 * read just before, so a record a running bot changes meanwhile is never overwritten silently.
 */
import type { DurabilityBackend, Journal } from '../core/durability/journal/backend.js'
import { INBOX_STATES, OUTBOX_STATES, recordKey, type InboxRecord, type OutboxRecord } from '../core/durability/journal/records.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import type { KeyRing } from '../core/encryption/key-ring.js'
import { ImportResealer, type ImportLine } from './import-reseal.js'

/** How to import. */
export interface ImportOptions {
  /** Replace records that exist (compare-and-set on the version read). @default false: refuse if any exists */
  overwrite?: boolean
  /** Put every record into this scope instead of the one it was exported from (sealed content is sealed again under it, with `keys`). */
  scope?: string
  /** The keys that open sealed content moved to another scope. */
  keys?: KeyRing
  /** Check only: the first pass, nothing written. */
  dryRun?: boolean
  onProgress?(phase: 'checking' | 'writing', lines: number): void
}

/** What an import did (or, dry, would do). */
export interface ImportSummary {
  records: number
  byKind: { inbox: number; outbox: number }
  scopes: string[]
  /** Records that existed before the import. */
  existing: number
  inserted: number
  overwritten: number
  /** Writes that lost their compare-and-set (a record changed between the check and the write). */
  conflicts: number
  dryRun: boolean
}

/** Records written per round trip. */
export const IMPORT_BATCH = 100
/** Keys of existing records a refusal names. */
const CONFLICT_SAMPLE_MAX = 3

/** Checks every line of an export without a backend, so a bad file is refused before anything is opened or created. */
export async function checkExport(
  readLines: () => AsyncIterable<string>,
  options: Pick<ImportOptions, 'scope'> = {},
): Promise<{ records: number; scopes: string[] }> {
  let records = 0
  const scopes = new Set<string>()
  await inBatches(readLines(), options, async (scope, _kind, lines) => {
    records += lines.length
    scopes.add(scope)
  })
  return { records, scopes: [...scopes].sort() }
}

/** Imports the lines `readLines()` yields (it is called once per pass). */
export async function importRecords(
  backend: DurabilityBackend,
  readLines: () => AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    records: 0,
    byKind: { inbox: 0, outbox: 0 },
    scopes: [],
    existing: 0,
    inserted: 0,
    overwritten: 0,
    conflicts: 0,
    dryRun: options.dryRun ?? false,
  }
  const scopes = new Set<string>()
  const sample: string[] = []
  const resealer = new ImportResealer(options.keys)
  await inBatches(readLines(), options, async (scope, kind, lines) => {
    for (const line of lines) resealer.moved(line, backend)
    const found = await backend.journal(scope).read(
      kind,
      lines.map((line) => recordKey(kind, line.record)),
    )
    found.forEach((entry, index) => {
      if (!entry) return
      summary.existing++
      if (sample.length < CONFLICT_SAMPLE_MAX) sample.push(`${scope} ${kind} "${recordKey(kind, lines[index]!.record)}"`)
    })
    scopes.add(scope)
    summary.records += lines.length
    summary.byKind[kind] += lines.length
    options.onProgress?.('checking', summary.records)
  })
  summary.scopes = [...scopes].sort()
  if (summary.existing > 0 && !options.overwrite) {
    throw new BotmeshError(
      ERROR_CODES.IMPORT_CONFLICT,
      `${summary.existing} record(s) of the import already exist in the target (${sample.join(', ')}${summary.existing > sample.length ? ', …' : ''}); nothing was imported: pass --overwrite to replace them`,
    )
  }
  if (summary.dryRun) return summary
  let written = 0
  await inBatches(readLines(), options, async (scope, kind, lines) => {
    const moved = lines.map((line) => ({ ...line, record: resealer.moved(line, backend) }))
    const outcome = await writeBatch(backend.journal(scope), kind, moved, options.overwrite ?? false)
    summary.inserted += outcome.inserted
    summary.overwritten += outcome.overwritten
    summary.conflicts += outcome.conflicts
    written += lines.length
    options.onProgress?.('writing', written)
  })
  return summary
}

async function writeBatch(
  journal: Journal,
  kind: 'inbox' | 'outbox',
  lines: ImportLine[],
  overwrite: boolean,
): Promise<{ inserted: number; overwritten: number; conflicts: number }> {
  const keys = lines.map((line) => recordKey(kind, line.record))
  const current = overwrite ? await journal.read(kind, keys) : []
  const results = await journal.write(
    'operator.import',
    lines.map((line, index) => ({ kind, record: line.record, expectVersion: current[index]?.version ?? 0 }) as never),
  )
  let inserted = 0
  let overwritten = 0
  let conflicts = 0
  results.forEach((result, index) => {
    if (!result.ok) conflicts++
    else if (current[index]) overwritten++
    else inserted++
  })
  return { inserted, overwritten, conflicts }
}

/** Parses and checks each line, grouping consecutive records of one scope and kind into batches. */
async function inBatches(
  lines: AsyncIterable<string>,
  options: ImportOptions,
  onBatch: (scope: string, kind: 'inbox' | 'outbox', lines: ImportLine[]) => Promise<void>,
): Promise<void> {
  let batch: ImportLine[] = []
  const flush = async () => {
    if (batch.length === 0) return
    const { scope, kind } = batch[0]!
    const taken = batch
    batch = []
    await onBatch(scope, kind, taken)
  }
  let number = 0
  for await (const text of lines) {
    number++
    if (text.trim() === '') continue
    if (number === 1) {
      checkHeader(text)
      continue
    }
    const line = parseLine(text, number, options.scope)
    if (batch.length > 0 && (batch[0]!.scope !== line.scope || batch[0]!.kind !== line.kind || batch.length >= IMPORT_BATCH)) await flush()
    batch.push(line)
  }
  if (number === 0) throw invalid(1, 'the file is empty; expected an export made by botmesh export')
  await flush()
}

function checkHeader(text: string): void {
  let header: Record<string, unknown>
  try {
    header = JSON.parse(text) as Record<string, unknown>
  } catch {
    throw invalid(1, 'is not JSON; expected the header line of a botmesh export')
  }
  if (header?.botmesh !== 'export') throw invalid(1, 'is not the header of a botmesh export ({"botmesh":"export",…})')
  if (header.format !== 1) throw invalid(1, `export format ${JSON.stringify(header.format)} is not one this version reads (1)`)
}

function parseLine(text: string, number: number, scope: string | undefined): ImportLine {
  let line: Partial<ImportLine>
  try {
    line = JSON.parse(text) as Partial<ImportLine>
  } catch {
    throw invalid(number, 'is not JSON')
  }
  if (line?.kind !== 'inbox' && line?.kind !== 'outbox')
    throw invalid(number, `kind must be "inbox" or "outbox", got ${JSON.stringify(line?.kind)}`)
  if (typeof line.scope !== 'string' || line.scope === '') throw invalid(number, 'has no scope')
  const record = line.record as Partial<InboxRecord & OutboxRecord> | undefined
  const key = record && recordKey(line.kind, record as InboxRecord & OutboxRecord)
  if (!record || typeof record !== 'object' || typeof key !== 'string' || key === '')
    throw invalid(number, `has no record with ${line.kind === 'inbox' ? 'an id' : 'a key'}`)
  const states: readonly string[] = line.kind === 'inbox' ? INBOX_STATES : OUTBOX_STATES
  if (!states.includes(String(record.state)))
    throw invalid(number, `state ${JSON.stringify(record.state)} is not an ${line.kind} state (${states.join(', ')})`)
  for (const field of ['attempts', 'createdAt', 'updatedAt', 'fencingToken'] as const) {
    if (typeof record[field] !== 'number') throw invalid(number, `"${key}" has no number ${field}`)
  }
  const moved = { scope: scope ?? line.scope, from: line.scope, kind: line.kind }
  return { ...moved, version: Number(line.version ?? 0), record: record as InboxRecord | OutboxRecord }
}

function invalid(line: number, detail: string): BotmeshError {
  return new BotmeshError(ERROR_CODES.IMPORT_INVALID, `line ${line} of the import ${detail}; nothing was imported`)
}
