-- Helpers of the steps (admit, journal-send, settle, take-back, run by steps.lua), after
-- helpers.lua and record-text.lua. The prelude (scripts.ts) defines, from the TypeScript constants:
-- INBOX_STATES and OUTBOX_STATES (records.ts; a group's KEYS hold one state index per state, in
-- that order) and UNFINISHED (step-rules.ts: the states that hold a chat's later messages behind
-- them).

-- The states this call has put in a group's states set already (one SADD a state a batch).
local STATED = {}

-- The keys of one (scope, collection) group from KEYS[offset + 1]: entries, due, states, then one state index per state.
local function group_at(offset, states)
  local group = { entries = KEYS[offset + 1], due = KEYS[offset + 2], states = KEYS[offset + 3], state = {} }
  for n, state in ipairs(states) do group.state[state] = KEYS[offset + 3 + n] end
  return group
end

local function state_key(group, state)
  return group.state[state] or error('botmesh: no state index in KEYS for the state ' .. state)
end

-- An envelope's header (decoded) and its value (the record's JSON text).
local function opened(envelope)
  local newline = string.find(envelope, '\n', 1, true)
  return cjson.decode(string.sub(envelope, 1, newline - 1)), string.sub(envelope, newline + 1)
end

-- Records `state` in the group's states set, once a call.
local function stated(group, state)
  local member = group.states .. '\0' .. state
  if STATED[member] then return end
  STATED[member] = true
  redis.call('SADD', group.states, state)
end

-- Writes a new key as write.lua does: the envelope, the state index, the states set, the due index.
local function put_new(group, key, envelope, state, member, due)
  redis.call('HSET', group.entries, key, envelope)
  redis.call('ZADD', state_key(group, state), 0, member)
  stated(group, state)
  if due ~= '' then redis.call('ZADD', group.due, due, key) end
end

-- Rewrites a key's record as write.lua does, one version up from the header `old`; the state time
-- is `at` (now: every record a step rewrites is updated now). due: a score's text, or nil.
local function put_over(group, key, old, state, value, due, at)
  if old[4] ~= cjson.null then redis.call('ZREM', group.due, key) end
  redis.call('ZREM', state_key(group, old[2]), old[5] .. key)
  local header = '[' .. int(old[1] + 1) .. ',"' .. state .. '",' .. at.json .. ',' .. (due or 'null') .. ',"' .. at.hex .. '"]'
  redis.call('HSET', group.entries, key, header .. '\n' .. value)
  redis.call('ZADD', state_key(group, state), 0, at.hex .. key)
  stated(group, state)
  if due then redis.call('ZADD', group.due, due, key) end
end

-- A claim as the TypeScript side sends it, from a step's argument i (`arg`, steps.lua): now (JSON),
-- timeHex(now), the lease's JSON before and after its token, its expiry (JSON), the owner, the
-- incarnation.
local function claim_at(arg, i)
  return {
    json = arg(i), hex = arg(i + 1), now = tonumber(arg(i)), lease_before = arg(i + 2), lease_after = arg(i + 3),
    expires = arg(i + 4), owner = arg(i + 5), incarnation = arg(i + 6),
  }
end

-- The rules of step-rules.ts, on a record from record_of and its header's state.

-- isFenced: a run under `token` may no longer write for the message.
local function is_fenced(state, record, token)
  if state ~= 'processing' or field_of(record, 'fencingToken') ~= token then return true end
  local lease = field_of(record, 'lease')
  return lease == nil or lease.token ~= token
end

-- isFree: a chat's head may be claimed now.
local function is_free(state, record, claim)
  if state == 'pending' then return true end
  if state == 'failed' then return (field_of(record, 'nextAttemptAt') or 0) <= claim.now end
  if state ~= 'processing' then return false end
  local lease = field_of(record, 'lease')
  if lease == nil or lease.expiresAt <= claim.now then return true end
  return lease.owner == claim.owner and lease.incarnation ~= nil and lease.incarnation ~= claim.incarnation
end

-- claimedRecord: processing, one more run charged, the next fencing token and a lease under it.
local function claim_record(group, key, old, record, claim)
  local token = (field_of(record, 'fencingToken') or 0) + 1
  set(record, 'state', '"processing"')
  set(record, 'attempts', int((field_of(record, 'attempts') or 0) + 1))
  set(record, 'fencingToken', int(token))
  set(record, 'lease', claim.lease_before .. int(token) .. claim.lease_after)
  set(record, 'nextAttemptAt', 'null')
  set(record, 'updatedAt', claim.json)
  local value = json_of(record)
  put_over(group, key, old, 'processing', value, claim.expires, claim)
  return value
end

-- spentRecord: dead, with its last error or that its runs never completed (`spent`: that text's
-- JSON before and after the number of runs, as unfinishedRunsError writes it).
local function spend_record(group, key, old, record, at, spent)
  if field_of(record, 'lastError') == nil then
    set(record, 'lastError', spent.before .. int(field_of(record, 'attempts') or 0) .. spent.after)
  end
  set(record, 'state', '"dead"')
  set(record, 'lease', 'null')
  set(record, 'nextAttemptAt', 'null')
  set(record, 'updatedAt', at.json)
  local value = json_of(record)
  put_over(group, key, old, 'dead', value, nil, at)
  return value
end

-- A chat's field in the chats hash: its id as cjson writes it, from the id the record holds (admit:
-- from the id's JSON), never the text scanned out of a record (its event repeats the name).
local function chat_key(chat_id)
  return cjson.encode(chat_id)
end

-- A chat's unfinished messages, head first: each id followed by a NUL (a journal key never holds one).
local function chat_list(chats, chat)
  return redis.call('HGET', chats, chat) or ''
end

local function save_chat(chats, chat, list)
  if list == '' then redis.call('HDEL', chats, chat) else redis.call('HSET', chats, chat, list) end
end

-- The list without its first id.
local function rest_of(list)
  return string.sub(list, string.find(list, '\0', 1, true) + 1)
end

-- The list with its finished heads (an operator's discard, an end) dropped, its head's id and envelope.
local function head_of(inbox, list)
  while list ~= '' do
    local id = string.sub(list, 1, string.find(list, '\0', 1, true) - 1)
    local envelope = redis.call('HGET', inbox.entries, id)
    if envelope and UNFINISHED[header(envelope)[2]] then return list, id, envelope end
    list = rest_of(list)
  end
  return list
end

-- The list without `id` (unchanged when it does not hold it).
local function without(list, id)
  local at = string.find('\0' .. list, '\0' .. id .. '\0', 1, true)
  if not at then return list end
  return string.sub(list, 1, at - 1) .. string.sub(list, at + #id + 1)
end
