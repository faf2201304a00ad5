/**
 * Inbox ids and idempotency keys as the journal keeps them. Every backend holds the same keys: at
 * most `LIMITS.idBytesMax` bytes of UTF-8 and no NUL. PostgreSQL needs both (its text refuses a
 * NUL, its index a row over about 2.7 kB), and a limit one backend imposes is a limit of all, so a
 * journal moves between backends (`botmesh export` / `import`) unchanged.
 *
 * A longer key, or one holding a NUL, is journaled under its digest instead of being refused:
 * `<its first characters>~sha256:<hex of the whole key>`. The digest is the same on every call, so a
 * redelivery of an event with a long id maps onto the same record, and an explicit idempotency key
 * keeps deduplicating; what a send or an inbound is keyed by is what its record says.
 */
import { hash } from 'node:crypto'
import { LIMITS } from '../limits.js'

/** Characters of a long key kept in front of its digest, for an operator to recognise it. */
const KEPT_CHARACTERS = 64

/** `key`, or its digest form when it is over `LIMITS.idBytesMax` bytes or holds a NUL. */
export function journalKey(key: string): string {
  // Three bytes at most per UTF-16 unit: most keys are known to fit without counting.
  const fits = key.length * 3 <= LIMITS.idBytesMax || Buffer.byteLength(key, 'utf8') <= LIMITS.idBytesMax
  if (fits && !key.includes('\u0000')) return key
  // Never half a surrogate pair, nor a control character, in front of the digest.
  const kept = key
    .slice(0, KEPT_CHARACTERS)
    .replace(/[\ud800-\udbff]$/, '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
  return `${kept}~sha256:${hash('sha256', key, 'hex')}`
}
