-- Helpers of the steps (admit, journal-send, settle, take-back, run by steps.lua), after
-- helpers.lua. The prelude (scripts.ts) defines, from the TypeScript constants: INBOX_STATES and OUTBOX_STATES
-- (records.ts; a group's KEYS hold one state index per state, in that order) and UNFINISHED
-- (step-rules.ts: the states that hold a chat's later messages behind them).
--
-- A record is rewritten field by field: its top-level fields are kept as the JSON text they were
-- written as, and only the fields a rule changes are replaced, by text the TypeScript side made
-- (JSON.stringify) or an integer. Re-encoding with cjson would change a record: it writes numbers
-- with 14 significant digits (a seq has 16) and an empty array as {} (inside a provider's event).

-- The states this call has put in a group's states set already (one SADD a state a batch).
local STATED = {}

local function int(n)
  return string.format('%d', n)
end

-- The index of the last character of the JSON value that starts at i (compact, as JSON.stringify writes).
local function value_end(text, i)
  local first = string.byte(text, i)
  if first == 34 then
    -- The next quote not escaped: one with an even run of backslashes before it (a plain find is memchr).
    local q = string.find(text, '"', i + 1, true)
    while string.byte(text, q - 1) == 92 do
      local p = q - 1
      while string.byte(text, p - 1) == 92 do p = p - 1 end
      if (q - p) % 2 == 0 then return q end
      q = string.find(text, '"', q + 1, true)
    end
    return q
  elseif first == 123 or first == 91 then
    local depth, j = 0, i
    while true do
      local q = string.find(text, '[%[%]{}"]', j)
      local c = string.byte(text, q)
      if c == 34 then
        j = value_end(text, q) + 1
      else
        if c == 123 or c == 91 then depth = depth + 1 else depth = depth - 1 end
        if depth == 0 then return q end
        j = q + 1
      end
    end
  end
  return string.find(text, '[,}%]]', i) - 1
end

-- A record's top-level fields by scanning it: their names in order, and each one's JSON text.
local function fields_of(json)
  local fields = { names = {}, raw = {} }
  if string.byte(json, 2) == 125 then return fields end
  local i = 2
  while true do
    local name_end = value_end(json, i)
    local last = value_end(json, name_end + 2)
    local name = string.sub(json, i + 1, name_end - 1)
    fields.names[#fields.names + 1] = name
    fields.raw[name] = string.sub(json, name_end + 2, last)
    if string.byte(json, last + 1) == 125 then return fields end
    i = last + 2
  end
end

-- The fields every record a step reads or rewrites holds at its top level (records.ts: required on
-- InboxRecord and OutboxRecord; providerMessageId on the outbox records a mark rewrites). Only an
-- optional field's presence needs the whole record decoded.
local ALWAYS_WRITTEN = {}
for _, name in ipairs({ 'state', 'chatId', 'attempts', 'nextAttemptAt', 'lease', 'fencingToken', 'lastError', 'updatedAt', 'providerMessageId' }) do
  ALWAYS_WRITTEN[name] = true
end

-- A record to read and to rewrite: its text, and the fields to change, in the order they were set.
-- It is decoded whole (view_of) only when a field cannot be read from its text alone.
local function record_of(json)
  return { json = json, changes = {} }
end

-- The record decoded (cjson reads numbers and empty arrays right, it only writes them wrong).
local function view_of(record)
  record.view = record.view or cjson.decode(record.json)
  return record.view
end

-- Sets a field to a JSON text.
local function set(record, name, json)
  for _, change in ipairs(record.changes) do
    if change[1] == name then
      change[2] = json
      return
    end
  end
  record.changes[#record.changes + 1] = { name, json }
end

-- Where a top-level field's value is in the text, found by its `"name":` (a plain find, never inside
-- a string, where a quote is escaped): only when the record has the field at its top level and the
-- text holds that name once, so the one found is the top-level one. Else nil: the caller scans.
local function span_of(record, name)
  if not ALWAYS_WRITTEN[name] and view_of(record)[name] == nil then return nil end
  local needle = '"' .. name .. '":'
  local at = string.find(record.json, needle, 1, true)
  if not at or string.find(record.json, needle, at + #needle, true) then return nil end
  return at + #needle, value_end(record.json, at + #needle)
end

-- The record's text with its changes: spliced in where each field is, else (a field it lacks, or a
-- name a nested object repeats) rebuilt from its scanned fields, a new one last as a spread puts it.
local function json_of(record)
  local spans = {}
  for n, change in ipairs(record.changes) do
    local first, last = span_of(record, change[1])
    if not first then
      local fields = fields_of(record.json)
      for _, c in ipairs(record.changes) do
        if fields.raw[c[1]] == nil then fields.names[#fields.names + 1] = c[1] end
        fields.raw[c[1]] = c[2]
      end
      local parts = {}
      for k, name in ipairs(fields.names) do parts[k] = '"' .. name .. '":' .. fields.raw[name] end
      return '{' .. table.concat(parts, ',') .. '}'
    end
    spans[n] = { first, last, change[2] }
  end
  table.sort(spans, function(a, b) return a[1] < b[1] end)
  local parts, at = {}, 1
  for _, span in ipairs(spans) do
    parts[#parts + 1] = string.sub(record.json, at, span[1] - 1)
    parts[#parts + 1] = span[3]
    at = span[2] + 1
  end
  parts[#parts + 1] = string.sub(record.json, at)
  return table.concat(parts)
end

-- A field's JSON text read from the record's text: where every `"name":` in it has the same value,
-- that is the top-level one's (a nested copy, as an event's chatId, agrees). Else nil.
local function agreed_raw(record, name)
  local needle = '"' .. name .. '":'
  local raw, from = nil, 1
  while true do
    local at = string.find(record.json, needle, from, true)
    if not at then return raw end
    local first = at + #needle
    local last = value_end(record.json, first)
    local text = string.sub(record.json, first, last)
    if raw and raw ~= text then return nil end
    raw, from = text, last + 1
  end
end

-- A field decoded (nil when absent or null): from its own text when it can be, else from the whole record.
local function field_of(record, name)
  local raw = ALWAYS_WRITTEN[name] and not record.view and agreed_raw(record, name)
  local value
  if raw then
    local first = string.byte(raw, 1)
    if first == 110 then return nil end
    value = (first == 123 or first == 34 or first == 91) and cjson.decode(raw) or tonumber(raw)
  else
    value = view_of(record)[name]
  end
  if value == cjson.null then return nil end
  return value
end

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
