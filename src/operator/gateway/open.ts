/**
 * `openBackend(url)`: a backend URL → an opened (started) durability backend. This is the CLI's
 * only way in (docs/architecture.md). Each backend's module, and so its driver, loads only when its URL
 * is opened. Opening checks what is there before it touches anything: a journal a read (or a
 * change of records) asks for must exist and be a journal, in a file, a SQLite table, a PostgreSQL
 * table prefix or a Redis prefix (`mustExist`: a typo is `JOURNAL_MISSING`, never a new, empty
 * journal); only `create` (import) may make one. A file journal held by a live process is opened
 * read-only.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { basename, dirname, extname } from 'node:path'
import type { DurabilityBackend } from '../../core/spi.js'
import { BotmeshError, ERROR_CODES, JournalCorruptError, JournalLockedError, JournalMissingError } from '../../core/errors/errors.js'
import { parseBackendUrl, scrubSecrets, type BackendTarget } from './backend-url.js'
import { fileCompactor, sqliteCompactor, type Compactor } from './compaction.js'
import { describeNearest } from '../../backends/common/nearest.js'
import { throwawayFactory, type ThrowawayOptions } from './throwaway.js'

export { parseBackendUrl, redactBackendUrl, scrubSecrets, type BackendTarget } from './backend-url.js'
export { THROWAWAY_DEFAULTS } from './throwaway.js'
export { BACKEND_CAPABILITIES, capabilitiesOf, type BackendCapabilities, type Compaction } from './capabilities.js'
export type { Compacted, Compactor } from './compaction.js'
export { journalPathOf, salvageJournalFile, verifyJournalFile, type JournalFileCheck } from './journal-files.js'
export { throwawayFactory, type ThrowawayFactory, type ThrowawayOptions } from './throwaway.js'

/** What the opener may do to the journal. */
export type BackendAccess = 'read' | 'write' | 'create'

/** Options of `openBackend`. */
export interface OpenBackendOptions extends ThrowawayOptions {
  /**
   * `read`: change nothing (a file journal opens read-only; the journal must exist). `write`: may
   * change records of an existing journal. `create`: may also create the journal (import).
   * @default 'read'
   */
  access?: BackendAccess
}

/** An opened backend, and how to let go of it. */
export interface OpenedBackend {
  /** Started; `close()` stops it. */
  readonly backend: DurabilityBackend
  readonly target: BackendTarget
  /** The URL with its password replaced by `***`. */
  readonly label: string
  /** Set when a live process holds the file journal: it was opened read-only instead. */
  readonly heldBy: { pid: number; file: string } | undefined
  /** Whether every write will be refused (a `read` open of a file journal, or one held by another process). */
  readonly readOnly: boolean
  /** `botmesh compact` on it; set where the capability table says `explicit` (a file journal, a SQLite file). */
  readonly compact: Compactor | undefined
  /** Stops the backend and releases what opening took (a lock, a pool, a throwaway's data). Idempotent. */
  close(): Promise<void>
}

/** SQLite files start with this header. */
const SQLITE_MAGIC = 'SQLite format 3\0'

/** Opens and starts the backend a URL names. */
export async function openBackend(url: string | BackendTarget, options: OpenBackendOptions = {}): Promise<OpenedBackend> {
  const target = typeof url === 'string' ? parseBackendUrl(url) : url
  const access = options.access ?? 'read'
  if (target.throwaway) return openThrowaway(target, options)
  switch (target.kind) {
    case 'file':
      return openFile(target, access)
    case 'events':
      return openEvents(target, access)
    case 'sqlite': {
      checkJournalFile(target.path, access, (head) => head.toString('latin1', 0, 16) === SQLITE_MAGIC, 'is not a SQLite database')
      const { SQLiteDurability } = await import('../../backends/sqlite/index.js')
      const backend = new SQLiteDurability({ file: target.path, mustExist: access !== 'create' })
      return started(target, backend, { compact: sqliteCompactor(backend) })
    }
    case 'redis': {
      const { RedisDurability } = await import('../../backends/redis/index.js')
      const { prefixGiven: _given, ...redis } = target.redis
      // ioredis reports why a connect failed (refused, WRONGPASS) as an event; the rejection only says it closed.
      const seen: string[] = []
      const logger = { error: (message: string) => (seen.push(message), options.logger?.error(message)) }
      const backend = new RedisDurability({
        ...redis,
        mustExist: access !== 'create',
        logger,
        connectTimeoutMs: options.connectTimeoutMs,
        commandTimeoutMs: options.connectTimeoutMs,
      })
      return started(target, backend, { explain: () => seen[0]?.replace(/^Redis connection error \(botmesh keeps reconnecting\): /, '') })
    }
    case 'postgres': {
      const { PostgresDurability } = await import('../../backends/postgres/index.js')
      const backend = new PostgresDurability({
        connectionString: target.connectionString,
        tablePrefix: target.tablePrefix,
        requirePersistence: target.requirePersistence,
        mustExist: access !== 'create',
        connectTimeoutMs: options.connectTimeoutMs,
        logger: options.logger ?? { error: () => {} },
      })
      return started(target, backend)
    }
  }
}

async function openThrowaway(target: BackendTarget, options: OpenBackendOptions): Promise<OpenedBackend> {
  const factory = throwawayFactory(target, options)
  const backend = await factory.create()
  return started(target, backend, { cleanup: () => factory.cleanup(backend) })
}

async function openFile(target: Extract<BackendTarget, { path: string }>, access: BackendAccess): Promise<OpenedBackend> {
  const { FileDurability } = await import('../../backends/file/index.js')
  // A journal in appendLog mode may be only its log until the first compaction writes the snapshot.
  if (!existsSync(target.path) && existsSync(`${target.path}.log`)) checkJournalFile(`${target.path}.log`, 'create', () => true, '')
  else checkJournalFile(target.path, access, () => true, '')
  if (access === 'read') {
    const backend = await FileDurability.open(target.path, { readOnly: true })
    return started(target, backend, { cleanup: () => backend.close(), readOnly: true, compact: fileCompactor(backend) })
  }
  try {
    // appendLog: an operator's bulk change appends a line per write instead of rewriting the file.
    const backend = await FileDurability.open(target.path, { appendLog: true })
    return started(target, backend, { cleanup: () => backend.close(), compact: fileCompactor(backend) })
  } catch (error) {
    if (!(error instanceof JournalLockedError) || error.pid === undefined || error.pid === process.pid) throw error
    const backend = await FileDurability.open(target.path, { readOnly: true })
    return started(target, backend, {
      cleanup: () => backend.close(),
      readOnly: true,
      heldBy: { pid: error.pid, file: target.path },
      compact: fileCompactor(backend),
    })
  }
}

/**
 * An events journal. `events+shared:` is made for several processes (a cross-process mutex), so
 * the CLI reads and writes it beside running bots. `events:` is a FileEventJournal a bot holds
 * with its pid lock: opened locked when it is free; when a live process holds it (or only reading
 * is asked), opened read-only, touching no file, and every write command is refused with the
 * holder's pid.
 */
async function openEvents(target: Extract<BackendTarget, { kind: 'events' }>, access: BackendAccess): Promise<OpenedBackend> {
  const { openEventsBackend } = await import('../../backends/events/open.js')
  const path = target.path!
  checkJournalFile(path, access, () => true, '')
  const opened = await openEventsBackend(path, { shared: target.shared, access })
  return started(target, opened.backend, {
    cleanup: () => opened.close(),
    readOnly: opened.readOnly,
    heldBy: opened.heldBy === undefined ? undefined : { pid: opened.heldBy, file: path },
  })
}

async function started(
  target: BackendTarget,
  backend: DurabilityBackend,
  extra: {
    cleanup?: () => Promise<void>
    readOnly?: boolean
    heldBy?: { pid: number; file: string }
    explain?: () => string | undefined
    compact?: Compactor
  } = {},
): Promise<OpenedBackend> {
  try {
    await backend.start()
  } catch (error) {
    await backend.stop().catch(() => {})
    await extra.cleanup?.().catch(() => {})
    throw openFailure(target, error, extra.explain?.())
  }
  let closing: Promise<void> | undefined
  return {
    backend,
    target,
    label: target.label,
    heldBy: extra.heldBy,
    readOnly: extra.readOnly ?? false,
    compact: extra.compact,
    close: () =>
      (closing ??= (async () => {
        try {
          await backend.stop()
        } finally {
          await extra.cleanup?.()
        }
      })()),
  }
}

/**
 * A driver's own error (wrong credentials, a database that does not exist) becomes a botmesh error
 * with a stable code that names the backend; botmesh's own errors pass through. No message shows a password.
 */
function openFailure(target: BackendTarget, error: unknown, detail?: string): unknown {
  const said = error instanceof Error ? error.message || String(error) : String(error)
  const message = scrubSecrets(detail && !said.includes(detail) ? `${said} (${detail})` : said, target.secrets)
  const code = (error as { code?: unknown } | null)?.code
  const auth =
    (typeof code === 'string' && /^28/.test(code)) || /WRONGPASS|NOAUTH|invalid username-password|authentication failed/i.test(message)
  if (auth)
    return new BotmeshError(ERROR_CODES.AUTH_FAILED, `${target.label}: the server refused the credentials (${message})`, { cause: error })
  if (error instanceof BotmeshError)
    return new BotmeshError(error.code, `cannot open ${target.label}: ${message}`, { retryable: error.retryable, cause: error })
  return new BotmeshError(ERROR_CODES.BACKEND_OPEN_FAILED, `cannot open ${target.label}: ${message}`, { cause: error })
}

/**
 * Refuses what is not a journal before any backend opens (and so creates or repairs) it: a
 * directory, a 0-byte file, another format; and a missing file unless the caller may create one.
 */
function checkJournalFile(path: string, access: BackendAccess, looksRight: (head: Buffer) => boolean, wrongFormat: string): void {
  let stat: ReturnType<typeof statSync> | undefined
  try {
    stat = statSync(path)
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error
  }
  if (!stat) {
    if (access === 'create') return
    throw new JournalMissingError(
      path,
      `does not exist${journalFilesNear(path)}; check --backend (or BOTMESH_BACKEND), or run botmesh demo to make one`,
    )
  }
  if (stat.isDirectory()) throw new JournalMissingError(path, 'is a directory, not a journal file')
  if (!stat.isFile()) throw new JournalMissingError(path, 'is not a regular file')
  if (stat.size === 0) throw new JournalMissingError(path, 'is empty (0 bytes), not a journal; move it aside or give another path')
  if (!wrongFormat) return
  const head = Buffer.alloc(16)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, head, 0, 16, 0)
  } finally {
    closeSync(fd)
  }
  // The file is there and holds something else: damaged or the wrong file, not missing.
  if (!looksRight(head)) throw new JournalCorruptError(path, wrongFormat)
}

/** Directory entries read at most to list the journal files beside a missing one. */
const DIRECTORY_ENTRIES_MAX = 1_000

/**
 * What a missing journal file's directory holds with the same extension, nearest name first
 * (`, not ./data/bot.db; there: "./data/bots.db"`), or that the directory is missing too.
 */
function journalFilesNear(path: string): string {
  const directory = dirname(path)
  let names: string[]
  try {
    names = readdirSync(directory).slice(0, DIRECTORY_ENTRIES_MAX)
  } catch {
    return ` (nor does its directory ${directory})`
  }
  const extension = extname(path)
  const near = names.filter((name) => extension !== '' && extname(name) === extension)
  if (near.length === 0) return ''
  return ` (files with ${extension} in ${directory}, nearest first: ${describeNearest(basename(path), near)})`
}
