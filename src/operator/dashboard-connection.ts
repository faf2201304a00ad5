/**
 * The dashboard's way to the backend, opened with the CLI's `openBackend`: the one door from the
 * dashboard (src/tui) to the backends and the CLI session, which it never imports itself. A shared backend
 * (SQLite, Redis, PostgreSQL) is opened once and kept; when it keeps failing (a server restarted,
 * a pool wedged) it is closed and opened again on the next use, so a server that comes back is
 * picked up without restarting the dashboard. A file journal belongs to one process at a time:
 * each refresh opens it read-only (seeing what the bot last wrote) and each action opens it for
 * writing, which is refused while a running bot holds it.
 */
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import { KeyRing } from '../core/encryption/key-ring.js'
import { sealedBackend } from '../core/encryption/sealed-backend.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import {
  capabilitiesOf,
  openBackend,
  parseBackendUrl,
  scrubSecrets,
  type BackendTarget,
  type OpenBackendOptions,
  type OpenedBackend,
} from './gateway/open.js'
import { heldByProcess } from './session.js'

export { ScopeRequiredError, UsageError } from './errors.js'
export { chooseScope } from './scope.js'
export type { OpenBackendOptions as ConnectionOptions } from './gateway/open.js'
export type { KeyRing } from '../core/encryption/key-ring.js'

/** Limits of a dashboard connection, named with units last. */
export const CONNECTION_LIMITS = {
  /** Refreshes failed in a row after which a kept backend is closed and opened afresh. */
  failuresBeforeReopen: 3,
} as const

/** The target of a backend URL, refused (BACKEND_URL_INVALID) before anything opens. */
export function dashboardTarget(url: string): BackendTarget {
  return parseBackendUrl(url)
}

export type ConnectionAccess = 'read' | 'write'

/** An opened (or openable) backend the dashboard reads and acts through. */
export interface DashboardConnection {
  /** The backend URL, its password replaced by ***. */
  readonly label: string
  /** Runs `work` on the opened backend, opening it first when needed. */
  use<T>(access: ConnectionAccess, work: (backend: DurabilityBackend) => Promise<T>): Promise<T>
  /** An error's message as the dashboard shows it (code added, passwords scrubbed). */
  describe(error: unknown): string
  /** Closes what is open. Idempotent. */
  close(): Promise<void>
}

/** A connection to `target`; nothing opens until the first `use`. Sealed content opens with `keys` where they hold its key. */
export function connect(target: BackendTarget, options: Omit<OpenBackendOptions, 'access'> = {}, keys?: KeyRing): DashboardConnection {
  return capabilitiesOf(target).oneProcessAtATime ? new PerUseConnection(target, options, keys) : new KeptConnection(target, options, keys)
}

abstract class BaseConnection implements DashboardConnection {
  constructor(
    protected readonly target: BackendTarget,
    protected readonly options: Omit<OpenBackendOptions, 'access'>,
    private readonly keys: KeyRing | undefined,
  ) {}

  /** The backend as the dashboard reads it: through the keys given, so sealed content shows where they open it. */
  protected view(backend: DurabilityBackend): DurabilityBackend {
    return sealedBackend(backend, this.keys ?? KeyRing.none(), { unreadable: 'keep' })
  }

  get label(): string {
    return this.target.label
  }

  abstract use<T>(access: ConnectionAccess, work: (backend: DurabilityBackend) => Promise<T>): Promise<T>
  abstract close(): Promise<void>

  describe(error: unknown): string {
    // The status line already names the backend, and wrappers repeat it ("cannot open <url>:
    // PostgreSQL at <host> is unavailable: …"): the message line leads with the root cause, so
    // that it survives an 80-column line.
    const said = (value: unknown) => (value instanceof Error ? value.message || value.name : String(value))
    const label = this.target.label
    const clean = (text: string) => scrubSecrets(text, this.target.secrets).replace(`cannot open ${label}: `, '').replace(`${label}: `, '')
    const root = clean(said(rootCause(error)))
    const top = clean(said(error))
    // The whole message after the root cause when it says more (what to install, what to check).
    const message = top.endsWith(root) ? root : `${root} · ${top}`
    const code = error instanceof BotmeshError ? error.code : (error as { code?: unknown } | null)?.code
    return typeof code === 'string' && code !== '' && !message.includes(code) ? `${root} (${code})${message.slice(root.length)}` : message
  }
}

/** SQLite, Redis, PostgreSQL: one opened backend, reopened after repeated failures. */
class KeptConnection extends BaseConnection {
  #opened: Promise<OpenedBackend> | undefined
  #failures = 0
  #closed = false

  async use<T>(_access: ConnectionAccess, work: (backend: DurabilityBackend) => Promise<T>): Promise<T> {
    if (this.#closed) throw new BotmeshError(ERROR_CODES.DASHBOARD_CLOSED, 'the dashboard is closing')
    const opening = (this.#opened ??= openBackend(this.target, { ...this.options, access: 'write' }))
    let opened: OpenedBackend
    try {
      opened = await opening
    } catch (error) {
      // Nothing is open: the next use tries again (the server may be back by then).
      if (this.#opened === opening) this.#opened = undefined
      throw error
    }
    try {
      const result = await work(this.view(opened.backend))
      this.#failures = 0
      return result
    } catch (error) {
      if (++this.#failures >= CONNECTION_LIMITS.failuresBeforeReopen && this.#opened === opening) {
        this.#failures = 0
        this.#opened = undefined
        await opened.close().catch(() => {})
      }
      throw error
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const opening = this.#opened
    this.#opened = undefined
    if (opening)
      await opening.then(
        (opened) => opened.close(),
        () => {},
      )
  }
}

/** A file journal: opened for each use and closed after it, so the dashboard never holds its lock. */
class PerUseConnection extends BaseConnection {
  #closed = false

  async use<T>(access: ConnectionAccess, work: (backend: DurabilityBackend) => Promise<T>): Promise<T> {
    if (this.#closed) throw new BotmeshError(ERROR_CODES.DASHBOARD_CLOSED, 'the dashboard is closing')
    const opened = await openBackend(this.target, { ...this.options, access })
    try {
      if (access === 'write' && opened.heldBy) throw heldByProcess(opened.heldBy)
      return await work(this.view(opened.backend))
    } finally {
      await opened.close()
    }
  }

  async close(): Promise<void> {
    this.#closed = true
  }
}

/** The deepest error in the `cause` chain that says something (bounded: a chain may loop). */
function rootCause(error: unknown): unknown {
  let found = error
  let next = (error as { cause?: unknown } | null)?.cause
  for (let depth = 0; next instanceof Error && depth < CAUSE_DEPTH_MAX; depth++) {
    if (next.message) found = next
    next = next.cause
  }
  return found
}

/** Causes followed at most when looking for the root of an error. @default 8 */
const CAUSE_DEPTH_MAX = 8

/** Rejects with REFRESH_TIMEOUT when the backend takes longer than `ms` (the promise itself is left to settle or fail). */
export function answerWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new BotmeshError(ERROR_CODES.REFRESH_TIMEOUT, `the backend did not answer within ${Math.round(ms / 1000)}s`, { retryable: true }),
        ),
      ms,
    )
    timer.unref()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
