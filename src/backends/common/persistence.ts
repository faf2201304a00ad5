/**
 * What a store's own durability settings mean for the journal, judged and said the same way for
 * every backend. Each backend reads its settings (redis/persistence-check.ts,
 * postgres/persistence-check.ts) and describes them as a `PersistenceFinding`; this file decides
 * what to do with it, once per start of a connection:
 *
 * - `volatile` (a restart or crash loses acknowledged journal writes): a warning at each start, or,
 *   with `requirePersistence: true`, a refusal (`ConfigError`, `CONFIG_INVALID`);
 * - `window` (only a crash of the machine loses the last moment of writes): said once, at info level;
 * - `unreadable` (the server would not show its settings): a warning, once;
 * - `durable`: nothing.
 *
 * "Once" is per connection object, "each start" per session of it (from its first share taken to
 * its last given back), so a store and its durability sharing a connection warn once between them.
 */
import { ConfigError } from '../../core/errors/errors.js'

/** What a backend found, in words that name its own settings. */
export type PersistenceFinding =
  | { level: 'durable' }
  | {
      /** Acknowledged writes can be lost by a restart or a crash of the server. */
      level: 'volatile'
      /** A stable name for this case (`redis-no-persistence`, `postgres-synchronous-commit-off`…). */
      id: string
      /** The settings as found, naming each (`appendonly is "no" and save is ""`). */
      settings: string
      /** What that loses. */
      loses: string
      /** What to set instead. */
      fix: string
    }
  | {
      /** Only a crash of the machine loses writes, and only the last moment of them. */
      level: 'window'
      id: string
      settings: string
      loses: string
    }
  | {
      /** The settings could not be read. */
      level: 'unreadable'
      /** The settings that could not be read (`appendonly, appendfsync and save`). */
      settings: string
      /** Why (`CONFIG GET is not allowed there`). */
      why: string
      /** What the operator should make sure of instead. */
      check: string
    }

/** Where a backend says what it found. */
export interface PersistenceLog {
  warn(message: string): void
  info(message: string): void
}

/** How one connection reports: its target, the option, its log, and the objects "once" and "each start" are kept on. */
export interface PersistenceReport {
  /** The server, without credentials (`Redis at 127.0.0.1:6379, database 0`). */
  target: string
  /** Refuse a `volatile` finding instead of warning about it. */
  requirePersistence: boolean
  log: PersistenceLog
  /** The connection: `window` and `unreadable` findings are said once per connection. */
  connection: object
}

/** How the option is spelled, in code and in a backend URL, for the messages. */
export const REQUIRE_PERSISTENCE_OPTION = 'requirePersistence: true (&requirePersistence=true in a backend URL)'

/** Connections already told about a `window` or an `unreadable` finding. */
const toldOnce = new WeakMap<object, Set<string>>()

/** Findings a test suite silenced (see `silencePersistenceWarnings`). */
let silenced: ((id: string) => boolean) | undefined

/** What a start does about a finding: nothing, a line said once, a warning, or a refusal. */
export type PersistenceAction = 'none' | 'info' | 'warn' | 'refuse'

/**
 * The rule of the file's comment, alone: what a start does about `finding`. `botmesh doctor`
 * grades its persistence line by it too, so the two never disagree.
 */
export function persistenceAction(finding: PersistenceFinding, requirePersistence: boolean): PersistenceAction {
  if (finding.level === 'durable') return 'none'
  if (finding.level === 'volatile') return requirePersistence ? 'refuse' : 'warn'
  return finding.level === 'window' ? 'info' : 'warn'
}

/**
 * Acts on a finding (see the file's comment): throws the `ConfigError` of a refusal, otherwise
 * warns or informs through `report.log`.
 */
export function reportPersistence(finding: PersistenceFinding, report: PersistenceReport): void {
  const action = persistenceAction(finding, report.requirePersistence)
  if (finding.level === 'durable') return
  if (finding.level === 'volatile') {
    const found = `${report.target}: ${finding.settings}: ${finding.loses}`
    if (action === 'refuse') throw new ConfigError(`${found}, and requirePersistence is set. ${finding.fix}`)
    if (silenced?.(finding.id)) return
    report.log.warn(`botmesh: ${found}. ${finding.fix}; ${REQUIRE_PERSISTENCE_OPTION} refuses to start on such a server`)
    return
  }
  const key = finding.level === 'window' ? finding.id : 'unreadable'
  const told = toldOnce.get(report.connection) ?? new Set<string>()
  toldOnce.set(report.connection, told)
  if (told.has(key)) return
  told.add(key)
  if (finding.level === 'window') report.log.info(`botmesh: ${report.target}: ${finding.settings}: ${finding.loses}`)
  else
    report.log.warn(
      `botmesh: could not read ${finding.settings} on ${report.target} (${finding.why}), so they could not be checked; make sure ${finding.check}`,
    )
}

/**
 * @internal For a test suite whose own servers run without persistence on purpose: the `volatile`
 * warnings whose id `silence` matches are not logged (refusals still are thrown). `undefined`
 * logs them all again.
 */
export function silencePersistenceWarnings(silence: ((id: string) => boolean) | undefined): void {
  silenced = silence
}
