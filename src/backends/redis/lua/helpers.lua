-- Helpers every script starts with. The prelude before them (scripts.ts) defines, from the
-- TypeScript constants: INFIX (a state index's key is KEYS[1] .. INFIX .. state), UNPACK_MAX
-- (unpack() fails beyond a few thousand values, so multi-field commands go in chunks of this
-- many) and TIME_HEX_LENGTH (a state index member is the time in hex, then the key).

local function chunked(command, key, list)
  local out = {}
  for first = 1, #list, UNPACK_MAX do
    local last = math.min(first + UNPACK_MAX - 1, #list)
    local part = redis.call(command, key, unpack(list, first, last))
    if type(part) == 'table' then
      for _, value in ipairs(part) do out[#out + 1] = value end
    end
  end
  return out
end

-- Writes back, unchanged, a record a call answers with instead of writing it (a compare-and-set
-- that failed, a duplicate): the write puts the record in this connection's replication offset,
-- so the WAIT that follows (waitReplicas, replica-wait.ts) confirms it too, whichever connection
-- wrote it. Otherwise an answer drawn from a record the replicas may not have yet (a message
-- acknowledged as a duplicate, a reply answered from the outbox) goes out unconfirmed.
local function confirm_found(entries, key, envelope)
  redis.call('HSET', entries, key, envelope)
end

-- An envelope's header: the JSON line before its first newline (version, state, ...).
local function header(envelope)
  return cjson.decode(string.sub(envelope, 1, string.find(envelope, '\n', 1, true) - 1))
end

-- key, envelope, key, envelope, ... for the keys the entries hash holds.
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

-- The key of a state index member (its time in hex first).
local function member_key(member)
  return string.sub(member, TIME_HEX_LENGTH + 1)
end
