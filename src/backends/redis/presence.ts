/**
 * Whether a prefix holds a journal, for an open that must not invent one (`mustExist`, the CLI's
 * reads): a typo in `?prefix=` would otherwise read as an empty journal, "no dead letters", at the
 * very moment an operator needs the truth. A prefix holds a journal once anything was written
 * under it: the first write of every (scope, collection) adds it to `<prefix>:{durable:scopes}`,
 * and that set is never emptied (a purge leaves it).
 */
import { JournalMissingError } from '../../core/errors/errors.js'
import { describeNearest } from '../common/nearest.js'
import type { RedisClient, RedisConnection } from './connection.js'
import { RedisKeys } from './keys.js'
import { REDIS_LIMITS } from './limits.js'

/** The suffix every prefix's scopes key ends with (keys.ts builds it as `<prefix>:{durable:scopes}`). */
const SCOPES_KEY_SUFFIX = new RedisKeys('x').scopes.slice(1)

/** Refuses a prefix with no journal, naming the key looked for and the prefixes that have one. */
export async function assertJournalPresent(connection: RedisConnection, keys: RedisKeys, where: string): Promise<void> {
  const present = await connection.run('look for the journal', 'journal', (client) => client.exists(keys.scopes))
  if (present > 0) return
  const found = await connection.run('list the journals', 'journal', (client) => journalPrefixes(client))
  const listed = describeNearest(keys.prefix, found.prefixes)
  throw new JournalMissingError(
    `the Redis prefix "${keys.prefix}" on ${where}`,
    `holds no botmesh journal (no key ${keys.scopes}); prefixes holding one there, nearest first: ${listed}${found.complete ? '' : ' (the search stopped early; there may be more)'}. Check ?prefix= and the database number`,
  )
}

/**
 * The prefixes that hold a journal, found by SCAN over every master (bounded by
 * `REDIS_LIMITS.journalSearchScansMax` SCAN calls per node, so a huge database cannot hang the CLI).
 */
export async function journalPrefixes(client: RedisClient): Promise<{ prefixes: string[]; complete: boolean }> {
  const nodes = 'nodes' in client && typeof client.nodes === 'function' && client.isCluster ? client.nodes('master') : [client]
  const prefixes = new Set<string>()
  let complete = true
  for (const node of nodes) {
    let cursor = '0'
    let scans = 0
    do {
      const [next, found] = await node.scan(
        cursor,
        'MATCH',
        `*${SCOPES_KEY_SUFFIX.replace(/[*?[\]\\]/g, (char) => `\\${char}`)}`,
        'COUNT',
        REDIS_LIMITS.journalSearchScanCount,
      )
      for (const key of found) prefixes.add(key.slice(0, -SCOPES_KEY_SUFFIX.length))
      cursor = next
      scans++
    } while (cursor !== '0' && scans < REDIS_LIMITS.journalSearchScansMax)
    if (cursor !== '0') complete = false
  }
  return { prefixes: [...prefixes].sort(), complete }
}
