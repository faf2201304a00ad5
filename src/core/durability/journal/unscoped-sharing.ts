/**
 * A backend without scopes (a custom `DurableKv` with no `scope()`) keeps every bot's records in
 * one space: two bots on it would claim, replay and deduplicate each other's messages, and one
 * bot's explicit key `reminder:1` would swallow the other's send. Such a backend must not be
 * shared, so in one process a second bot (another scope) is refused at start while the first one
 * runs on it, through the same backend or another one over the same store. Bots of the same scope may share it: they are replicas of one bot (a crashed bot's
 * successor included).
 */
import type { DurabilityBackend } from './backend.js'
import { ConfigError } from '../../errors/errors.js'
import { KvDurability } from './kv-durability.js'

/** The scopes running on each unscoped store in this process, with how many bots run each. */
const running = new WeakMap<object, Map<string, number>>()

/**
 * Where a backend's records live: a KvDurability's DurableKv (two KvDurability over one store share
 * its records), else the backend itself.
 */
function storeOf(backend: DurabilityBackend): object {
  return backend instanceof KvDurability ? backend.kv : backend
}

/** Records that a bot of `scopeId` runs on `backend`; refuses it if a bot of another scope does. */
export function claimUnscopedBackend(backend: DurabilityBackend, scopeId: string): void {
  if (backend.scoped) return
  const store = storeOf(backend)
  const scopes = running.get(store) ?? new Map<string, number>()
  const other = [...scopes.keys()].find((scope) => scope !== scopeId)
  if (other !== undefined) {
    throw new ConfigError(
      `the durability backend "${backend.kind}" has no scope(): the bot of scope "${other}" already runs on it, ` +
        `and the bot of scope "${scopeId}" would share its records (claims, replays, and explicit idempotency keys such as ` +
        `reminder:1 would collide). Give each bot its own backend, or implement scope(scopeId) in its DurableKv`,
    )
  }
  scopes.set(scopeId, (scopes.get(scopeId) ?? 0) + 1)
  running.set(store, scopes)
}

/** Forgets one bot of `scopeId` on `backend` (at its stop, or a failed start). */
export function releaseUnscopedBackend(backend: DurabilityBackend, scopeId: string): void {
  const scopes = running.get(storeOf(backend))
  const count = scopes?.get(scopeId)
  if (scopes === undefined || count === undefined) return
  if (count > 1) scopes.set(scopeId, count - 1)
  else scopes.delete(scopeId)
}
