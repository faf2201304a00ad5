-- write: applies compare-and-set ops in order, each on its own, on one or more collections.
-- KEYS: one triple per collection: entries hash, due index, states set.
-- ARGV: groups of 8 per op: the offset of its collection's triple in KEYS (0, 3, 6, ...), op
--   ('put' | 'delete'), key, expectVersion, envelope, state, state index member, due score ('' for
--   none). A delete leaves the last four empty.
-- Returns two values per op: 1 and the new version (0 after a delete), or 0 and the current
--   envelope ('' when the key does not exist).

local results = {}
for i = 1, #ARGV, 8 do
  local base = tonumber(ARGV[i])
  local entries, due_index, states = KEYS[base + 1], KEYS[base + 2], KEYS[base + 3]
  local key, expected = ARGV[i + 2], tonumber(ARGV[i + 3])
  local current = redis.call('HGET', entries, key)
  local old = current and header(current)
  local version = old and old[1] or 0
  if version ~= expected then
    if current then confirm_found(entries, key, current) end
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
