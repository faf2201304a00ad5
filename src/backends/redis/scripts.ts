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
import { INBOX_STATES, OUTBOX_STATES } from '../../core/backend-internals.js'
import { UNFINISHED_STATES } from '../../core/durability/steps/step-rules.js'

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

/** The files that define the steps' functions, in the order steps.lua's prelude takes them. */
export const STEP_FILES = ['record-text', 'step-helpers', 'admit', 'journal-send', 'settle', 'take-back'] as const

/** The states the steps' scripts know, from the records' and the rules' own lists (step-helpers.lua). */
const STEP_PRELUDE = [
  `local INBOX_STATES = ${luaList(INBOX_STATES)}`,
  `local OUTBOX_STATES = ${luaList(OUTBOX_STATES)}`,
  `local UNFINISHED = {}`,
  `for _, state in ipairs(${luaList([...UNFINISHED_STATES])}) do UNFINISHED[state] = true end`,
].join('\n')

/** The steps (steps.ts): one script that runs a batch of them, each step a function of its own file. */
export const STEPS = script('steps', STEP_PRELUDE)

/** Every script, for tools that preload them. */
export const SCRIPTS: readonly RedisScript[] = [WRITE, DUE, LIST, COUNT, PURGE, APPEND_LOG, STEPS]

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

type ScriptName = Exclude<keyof typeof LUA_SOURCES, 'helpers' | (typeof STEP_FILES)[number]>

/** A script: the prelude and helpers.lua, then (for the steps) their prelude and files, then its own Lua. */
function script(name: ScriptName, stepPrelude?: string): RedisScript {
  const step = stepPrelude === undefined ? '' : `${stepPrelude}\n${STEP_FILES.map((file) => LUA_SOURCES[file]).join('\n')}\n`
  const lua = `-- botmesh ${name}\n${PRELUDE}\n${LUA_SOURCES.helpers}\n${step}${LUA_SOURCES[name]}`
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') }
}

/** A Lua table literal of plain strings. */
function luaList(items: readonly string[]): string {
  return `{${items.map((item) => JSON.stringify(item)).join(', ')}}`
}
