/**
 * `sealedBackend(backend, ring, options)`: any durability backend, its journals sealed (see
 * sealed-journal.ts). A wrapper at the boundary: the engine and the backend are unchanged, and a
 * bot without `durability.encryption` never creates one, so it costs nothing then.
 */
import type { DurabilityBackend, Journal } from '../durability/journal/backend.js'
import type { UnreadableValueError } from './encryption-errors.js'
import type { KeyRing } from './key-ring.js'
import { ENCRYPTION_LIMITS } from './limits.js'
import { RecordSealer } from './record-sealer.js'
import { SealedJournal, type UnreadablePolicy } from './sealed-journal.js'

/** How a sealed backend treats records its ring cannot open. */
export interface SealedBackendOptions {
  /** `refuse` for a bot (never given to the engine), `keep` for a tool (given with their content sealed). */
  unreadable: UnreadablePolicy
  /** Told once per record the ring cannot open (a bot emits it as an `'error'`). */
  onUnreadable?(error: UnreadableValueError): void
  /** Content in clear is refused as unreadable (`UnsealedValueError`). @default false */
  requireSealed?: boolean
}

/** A backend whose records' content is sealed under `ring` before `backend` sees it. */
export class SealedBackend implements DurabilityBackend {
  readonly kind: string
  readonly shared: boolean
  readonly scoped: boolean
  readonly sealer: RecordSealer
  /** The inner backend's, when it can halt (a crashable test backend). */
  readonly whenHalted?: () => Promise<Error>
  /** Records already reported, so a record is reported once and not at every sweep. */
  readonly #reported = new Set<string>()

  constructor(
    readonly inner: DurabilityBackend,
    ring: KeyRing,
    private readonly options: SealedBackendOptions,
  ) {
    this.kind = inner.kind
    this.shared = inner.shared
    this.scoped = inner.scoped
    if (inner.whenHalted) this.whenHalted = () => inner.whenHalted!()
    this.sealer = new RecordSealer(ring, { requireSealed: options.requireSealed ?? false })
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  stop(): Promise<void> {
    return this.inner.stop()
  }

  now(): Promise<number> {
    return this.inner.now()
  }

  scopes(): Promise<string[]> {
    return this.inner.scopes()
  }

  journal(scopeId: string): Journal {
    return new SealedJournal(this.inner.journal(scopeId), this.sealer, {
      unreadable: this.options.unreadable,
      report: (error) => this.#report(scopeId, error),
      purgeWrite: this.options.unreadable === 'refuse' ? 'retention.purge' : 'operator.purge',
      boundScope: boundScope(this.inner, scopeId),
    })
  }

  #report(scopeId: string, error: UnreadableValueError): void {
    const id = `${scopeId}\0${error.message}`
    if (this.#reported.has(id)) return
    if (this.#reported.size >= ENCRYPTION_LIMITS.unreadableReportedMax) this.#reported.clear()
    this.#reported.add(id)
    this.options.onUnreadable?.(error)
  }
}

/**
 * The scope a journal's content is bound to: its own, or '' on a backend without scopes, whose
 * records share one space whatever scope a bot or a tool names (so binding one would only make a
 * renamed bot's records unreadable, and protect nothing).
 */
export function boundScope(backend: DurabilityBackend, scopeId: string): string {
  return backend.scoped ? scopeId : ''
}

/** Wraps `backend` so its journals are sealed under `ring`. */
export function sealedBackend(backend: DurabilityBackend, ring: KeyRing, options: SealedBackendOptions): SealedBackend {
  return new SealedBackend(backend, ring, options)
}
