/**
 * The journals must never be evicted. A Redis whose `maxmemory-policy` is anything but
 * `noeviction` drops keys under memory pressure without telling anyone: inbox records vanish (a
 * redelivery then runs and replies again), unfinished messages are never replayed, a whole scope
 * can go. With `noeviction` a full server refuses writes instead, which the engine fails closed on.
 *
 * So a start (server-checks.ts) judges the policy of every master and refuses any other with a
 * `ConfigError`, unless the operator accepted it (`acceptEviction: true`), which is repeated as a
 * warning at each start. A server that does not let us read it (a managed Redis without `CONFIG`)
 * is warned about once, with the persistence settings (server-checks.ts).
 */
import { ConfigError } from '../../core/errors/errors.js'

/** The only policy under which Redis never drops a journal key. */
export const SAFE_EVICTION_POLICY = 'noeviction'

/** What to set instead, in the refusal and in `botmesh doctor`. */
export const EVICTION_FIX = `Set it to "${SAFE_EVICTION_POLICY}" (CONFIG SET maxmemory-policy ${SAFE_EVICTION_POLICY}, and in redis.conf)`

/** What evicting loses, in the refusal and in `botmesh doctor`. */
export const EVICTION_LOSES = 'Redis may evict journal records under memory pressure, losing messages and replaying sent replies'

/** What the check needs to know and where it says what it found. */
export interface EvictionCheck {
  /** The server, without credentials, for messages. */
  target: string
  /** The operator accepts an evicting server (warned at each start). */
  acceptEviction: boolean
  warn(message: string): void
}

/** The policies among `policies` that may evict keys (each once), and what a start does about them. */
export function evictionAction(
  policies: readonly string[],
  acceptEviction: boolean,
): { evicting: string[]; action: 'none' | 'warn' | 'refuse' } {
  const evicting = [...new Set(policies)].filter((policy) => policy !== SAFE_EVICTION_POLICY)
  return { evicting, action: evicting.length === 0 ? 'none' : acceptEviction ? 'warn' : 'refuse' }
}

/** Refuses (or, accepted, warns about) masters whose policy may evict keys; see the file's comment. */
export function checkEvictionPolicy(policies: readonly string[], check: EvictionCheck): void {
  const { evicting, action } = evictionAction(policies, check.acceptEviction)
  if (action === 'none') return
  const found = `maxmemory-policy is "${evicting.join('", "')}" on ${check.target}`
  if (action === 'refuse') {
    throw new ConfigError(
      `${found}: ${EVICTION_LOSES}. ` +
        `${EVICTION_FIX}, ` +
        `or pass acceptEviction: true (?acceptEviction=true in a backend URL) to run anyway`,
    )
  }
  check.warn(`botmesh: ${found}, not "${SAFE_EVICTION_POLICY}" (accepted with acceptEviction: true): journal records may be evicted`)
}
