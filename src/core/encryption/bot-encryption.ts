/**
 * What `durability.encryption` changes in a bot: its backend and (when it is one of botmesh's) its
 * store are wrapped so content is sealed before they see it. Without the option both are used as
 * given, and nothing of the sealing layer runs.
 */
import type { DurabilityOptions } from '../durability/config.js'
import { MemoryDurability } from '../durability/memory/memory-durability.js'
import type { UnreadableValueError } from './encryption-errors.js'
import type { Store } from '../store/store.js'
import { KeyRing } from './key-ring.js'
import { sealedBackend } from './sealed-backend.js'
import { SealedStore } from './sealed-store.js'

/** The store and durability options a bot runs with: sealed under `durability.encryption`, or as given. */
export function encryptedParts(
  store: Store,
  durability: DurabilityOptions | undefined,
  onUnreadable: (error: UnreadableValueError) => void,
): { store: Store; durability: DurabilityOptions | undefined } {
  if (!durability?.encryption) return { store, durability }
  const ring = KeyRing.from(durability.encryption)
  const requireSealed = durability.encryption.requireSealed ?? false
  const backend = sealedBackend(durability.backend ?? new MemoryDurability(), ring, { unreadable: 'refuse', onUnreadable, requireSealed })
  return { store: store.sealable ? new SealedStore(store, ring, { requireSealed }) : store, durability: { ...durability, backend } }
}
