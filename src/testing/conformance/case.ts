/**
 * A conformance case: one named behaviour every durability backend must show. Cases use
 * `node:assert`, so they run under vitest and under the CLI's plain runner alike.
 */
import type { DurabilityBackend, Journal } from '../../core/durability/journal/backend.js'

/** What a case gets: a started backend of its own, and fresh scopes on it. */
export interface ConformanceContext {
  /** The case's own backend, started before the case runs. */
  backend: DurabilityBackend
  /** A journal under a scope no other case uses. */
  journal(): Journal
  /** A new scope id no other case uses. */
  scopeId(): string
}

/** One named case of the conformance suite. */
export interface ConformanceCase {
  /** What the case checks, as the test runner shows it. */
  name: string
  /** Runs the case; throws on a broken promise of the contract. */
  run(context: ConformanceContext): Promise<void>
}

/** Makes a fresh, not yet started backend for one case, and cleans up after it. */
export interface BackendFactory {
  /** A fresh, not yet started backend for one case. */
  create(): Promise<DurabilityBackend>
  /** Called after the case, whatever its outcome, with the backend it got (already stopped). */
  cleanup?(backend: DurabilityBackend): Promise<void>
}
