/**
 * The Lua scripts of the Redis backend, kept as Lua in lua/*.lua (each headed by its KEYS and ARGV)
 * and built into lua/sources.generated.ts. Each is one atomic operation on one (scope, collection)
 * group of keys (keys.ts), which share a hash tag and so one Cluster slot; WRITE may take several
 * groups (only groups of one slot in a Cluster: group-commit.ts). A state index's key is
 * derived inside a script from the entries key (KEYS[1] .. INFIX .. state), because
 * which state an entry leaves is only known once the script has read it; it is in the same slot.
 * Scripts run by EVALSHA, falling back to EVAL when the server does not know them yet (the first
 * call on a server, after a restart or a failover): one round trip, two on that first call.
 */
import { createHash } from 'node:crypto'
import type { RedisClient } from './client.js'
import { TIME_HEX_LENGTH } from './envelope.js'
import { STATE_KEY_INFIX } from './keys.js'
import { REDIS_LIMITS } from './limits.js'
import { LUA_SOURCES } from './lua/sources.generated.js'

/** A script and its SHA-1, as EVALSHA names it. */
export interface RedisScript {
  name: string
  lua: string
  sha: string
}

/** The constants the scripts share with this side, defined before helpers.lua. */
const PRELUDE = [
  `local INFIX = ${JSON.stringify(STATE_KEY_INFIX)}`,
  `local UNPACK_MAX = ${REDIS_LIMITS.scriptUnpackMax}`,
  `local TIME_HEX_LENGTH = ${TIME_HEX_LENGTH}`,
].join('\n')

export const WRITE = script('write')
export const DUE = script('due')
export const LIST = script('list')
export const COUNT = script('count')
export const PURGE = script('purge')
/** RedisStore's message log. */
export const APPEND_LOG = script('append-log')

/** Every script, for tools that preload them. */
export const SCRIPTS: readonly RedisScript[] = [WRITE, DUE, LIST, COUNT, PURGE, APPEND_LOG]

/** Runs a script in one round trip: EVALSHA, or EVAL when the server has not seen it yet. */
export async function runScript(
  client: RedisClient,
  target: RedisScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await client.evalsha(target.sha, keys.length, ...keys, ...args)
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
    return client.eval(target.lua, keys.length, ...keys, ...args)
  }
}

function script(name: Exclude<keyof typeof LUA_SOURCES, 'helpers'>): RedisScript {
  const lua = `-- botmesh ${name}\n${PRELUDE}\n${LUA_SOURCES.helpers}\n${LUA_SOURCES[name]}`
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') }
}
