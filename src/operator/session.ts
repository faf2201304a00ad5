/**
 * A command's time with a backend (a CLI command's, the dashboard's): open it (the access the command needs), choose the scope, do
 * the work, and close what was opened whatever happens. A write on a file journal a live process
 * holds is refused here, before any service runs.
 */
import type { DurabilityBackend, Journal } from '../core/durability/journal/backend.js'
import { KeyRing } from '../core/encryption/key-ring.js'
import { sealedBackend } from '../core/encryption/sealed-backend.js'
import type { UnreadableValueError } from '../core/encryption/encryption-errors.js'
import { JournalLockedError } from '../core/errors/errors.js'
import { openBackend, type BackendAccess, type BackendTarget, type OpenBackendOptions, type OpenedBackend } from './gateway/open.js'
import { chooseScope, type ScopeChoice } from './scope.js'

/** Which backend to open, how, with which keys, and which scope in it: what the CLI's flags and the dashboard resolve to. */
export interface BackendChoice {
  /** The backend URL, parsed. */
  target: BackendTarget
  /** `openBackend`'s options, less the access each command decides. */
  open: Omit<OpenBackendOptions, 'access'>
  /** The encryption keys sealed records are opened with; undefined: none given. */
  keys: KeyRing | undefined
  scope: ScopeChoice
}

/** An opened backend. */
export interface Session {
  /** The backend as opened: records exactly as stored (export and import carry them so, sealed). */
  opened: OpenedBackend
  /** The backend through the keys given: sealed content opened where a key opens it, left sealed elsewhere. */
  backend: DurabilityBackend
  /** The backend URL without its password. */
  label: string
  /** Records the keys given could not open and a purge therefore left (each once). */
  unreadable: UnreadableValueError[]
}

/** An opened backend and the journal of the chosen scope. */
export interface ScopedSession extends Session {
  scope: string
  journal: Journal
}

/** Opens the configured backend for `access`, runs `work`, and closes the backend. */
export async function withBackend<T>(config: BackendChoice, access: BackendAccess, work: (session: Session) => Promise<T>): Promise<T> {
  const opened = await openBackend(config.target, { ...config.open, access })
  try {
    if (access !== 'read' && opened.heldBy) throw heldByProcess(opened.heldBy)
    const unreadable: UnreadableValueError[] = []
    // Without keys too: a record sealed under a key not given is kept back from a purge.
    const backend = sealedBackend(opened.backend, config.keys ?? KeyRing.none(), {
      unreadable: 'keep',
      onUnreadable: (error) => unreadable.push(error),
    })
    return await work({ opened, backend, label: opened.label, unreadable })
  } finally {
    await opened.close()
  }
}

/** As `withBackend`, in the chosen scope's journal. */
export async function withJournal<T>(
  config: BackendChoice,
  access: BackendAccess,
  work: (session: ScopedSession) => Promise<T>,
): Promise<T> {
  return withBackend(config, access, async (session) => {
    const scope = await chooseScope(session.backend, config.scope, { allowNew: access === 'create' })
    return work({ ...session, scope, journal: session.backend.journal(scope) })
  })
}

/** The refusal of a write to a journal a running process holds: who holds it, and what to do instead. */
export function heldByProcess(held: { pid: number; file: string }): JournalLockedError {
  return new JournalLockedError(
    held.file,
    held.pid,
    `${held.file} is held by process ${held.pid} (a running bot), so botmesh opened it read-only and will not change it. ` +
      `Stop that process first, or make the change from inside it (bot.durability.replayInbound / retrySend / outbox.discard), ` +
      `or move the bot to a backend tools may change while it runs (sqlite:, redis://, postgres://)`,
  )
}
