/** Removing a key pattern from a single node or a cluster: how a throwaway Redis backend is cleaned up. */
import type { Redis } from 'ioredis'
import type { RedisClient } from './client.js'

/** Deletes every key matching `pattern` on every master (one key per DEL: no cross-slot calls). */
export async function deleteKeys(client: RedisClient, pattern: string): Promise<number> {
  const nodes = 'nodes' in client && typeof client.nodes === 'function' ? client.nodes('master') : [client as Redis]
  let deleted = 0
  for (const node of nodes) {
    let cursor = '0'
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000)
      await Promise.all(keys.map((key) => client.del(key)))
      deleted += keys.length
      cursor = next
    } while (cursor !== '0')
  }
  return deleted
}
