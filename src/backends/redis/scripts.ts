/**
 * The Lua scripts of the Redis backend. Each is one atomic operation on one (scope, collection)
 * group of keys (keys.ts), which share a hash tag and so one Cluster slot; WRITE may take several
 * groups (only groups of one slot in a Cluster: group-commit.ts). A state index's key is
 * derived inside a script from the entries key (KEYS[1] .. STATE_KEY_INFIX .. state), because
 * which state an entry leaves is only known once the script has read it; it is in the same slot.
 * Scripts run by EVALSHA, falling back to EVAL when the server does not know them yet (the first
 * call on a server, after a restart or a failover): one round trip, two on that first call.
 */
import { createHash } from 'node:crypto'
import type { RedisClient } from './connection.js'
import { TIME_HEX_LENGTH } from './envelope.js'
import { STATE_KEY_INFIX } from './keys.js'
import { REDIS_LIMITS } from './limits.js'

/** A script and its SHA-1, as EVALSHA names it. */
export interface RedisScript {
  name: string
  lua: string
  sha: string
}

// Lua's unpack() fails beyond a few thousand values, so multi-field commands go in chunks.
const HELPERS = `
local INFIX = ${JSON.stringify(STATE_KEY_INFIX)}
local function chunked(command, key, list)
  local out = {}
  for first = 1, #list, ${REDIS_LIMITS.scriptUnpackMax} do
    local last = math.min(first + ${REDIS_LIMITS.scriptUnpackMax - 1}, #list)
    local part = redis.call(command, key, unpack(list, first, last))
    if type(part) == 'table' then
      for _, value in ipairs(part) do out[#out + 1] = value end
    end
  end
  return out
end
local function header(envelope)
  return cjson.decode(string.sub(envelope, 1, string.find(envelope, '\\n', 1, true) - 1))
end
local function pairs_of(entries, keys)
  local out = {}
  if #keys == 0 then return out end
  local envelopes = chunked('HMGET', entries, keys)
  for i, key in ipairs(keys) do
    if envelopes[i] then
      out[#out + 1] = key
      out[#out + 1] = envelopes[i]
    end
  end
  return out
end
`

/**
 * write: applies compare-and-set ops in order, each on its own, on one or more collections.
 * KEYS: one triple per collection: entries hash, due index, states set.
 * ARGV: groups of 8 per op: the offset of its collection's triple in KEYS (0, 3, 6, ...), op
 *   ('put' | 'delete'), key, expectVersion, envelope, state, state index member, due score ('' for
 *   none). A delete leaves the last four empty.
 * Returns two values per op: 1 and the new version (0 after a delete), or 0 and the current
 *   envelope ('' when the key does not exist).
 */
export const WRITE = script(
  'write',
  `
local results = {}
for i = 1, #ARGV, 8 do
  local base = tonumber(ARGV[i])
  local entries, due_index, states = KEYS[base + 1], KEYS[base + 2], KEYS[base + 3]
  local key, expected = ARGV[i + 2], tonumber(ARGV[i + 3])
  local current = redis.call('HGET', entries, key)
  local old = current and header(current)
  local version = old and old[1] or 0
  if version ~= expected then
    results[#results + 1] = 0
    results[#results + 1] = current or ''
  else
    if old then
      if old[4] ~= cjson.null then redis.call('ZREM', due_index, key) end
      redis.call('ZREM', entries .. INFIX .. old[2], old[5] .. key)
    end
    if ARGV[i + 1] == 'delete' then
      redis.call('HDEL', entries, key)
      results[#results + 1] = 1
      results[#results + 1] = 0
    else
      local state = ARGV[i + 5]
      redis.call('HSET', entries, key, ARGV[i + 4])
      redis.call('ZADD', entries .. INFIX .. state, 0, ARGV[i + 6])
      redis.call('SADD', states, state)
      if ARGV[i + 7] ~= '' then redis.call('ZADD', due_index, ARGV[i + 7], key) end
      results[#results + 1] = 1
      results[#results + 1] = expected + 1
    end
  end
end
return results
`,
)

/**
 * due: the entries due by a time, soonest first (ties by key).
 * KEYS[1] entries hash, KEYS[2] due index.
 * ARGV[1] until (a score, inclusive), ARGV[2] limit.
 * Returns key, envelope, key, envelope, ...
 */
export const DUE = script(
  'due',
  `
local keys = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
return pairs_of(KEYS[1], keys)
`,
)

/**
 * list: one page of a state in (stateTime, key) order.
 * KEYS[1] entries hash, KEYS[2] the state's index.
 * ARGV[1] lower lex bound ('-' or '(' .. member after), ARGV[2] upper lex bound ('+' or
 *   '(' .. timeHex(before)), ARGV[3] limit.
 * Returns key, envelope, key, envelope, ...
 */
export const LIST = script(
  'list',
  `
local members = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local keys = {}
for i, member in ipairs(members) do keys[i] = string.sub(member, ${TIME_HEX_LENGTH + 1}) end
return pairs_of(KEYS[1], keys)
`,
)

/**
 * count: how many entries each state holds (ZCARD per state: no scan).
 * KEYS[1] entries hash, KEYS[2] states set.
 * Returns state, count, state, count, ... for the states that hold any.
 */
export const COUNT = script(
  'count',
  `
local out = {}
for _, state in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local n = redis.call('ZCARD', KEYS[1] .. INFIX .. state)
  if n > 0 then
    out[#out + 1] = state
    out[#out + 1] = n
  end
end
return out
`,
)

/**
 * purge: deletes the oldest entries of one state below a time, at most a limit.
 * KEYS[1] entries hash, KEYS[2] due index, KEYS[3] the state's index.
 * ARGV[1] upper lex bound ('(' .. timeHex(olderThan)), ARGV[2] limit.
 * Returns how many entries it deleted.
 */
export const PURGE = script(
  'purge',
  `
local members = redis.call('ZRANGEBYLEX', KEYS[3], '-', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #members == 0 then return 0 end
local keys = {}
for i, member in ipairs(members) do keys[i] = string.sub(member, ${TIME_HEX_LENGTH + 1}) end
chunked('HDEL', KEYS[1], keys)
chunked('ZREM', KEYS[2], keys)
chunked('ZREM', KEYS[3], members)
return #members
`,
)

/**
 * appendLog (RedisStore): appends one message log entry and trims the log to its newest entries.
 * KEYS[1] the chat's log list.
 * ARGV[1] the entry as JSON, ARGV[2] how many entries to keep.
 * Returns the log's length after trimming.
 */
export const APPEND_LOG = script(
  'appendLog',
  `
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
return redis.call('LLEN', KEYS[1])
`,
)

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

function script(name: string, body: string): RedisScript {
  const lua = `-- botmesh ${name}\n${HELPERS}${body}`
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') }
}
