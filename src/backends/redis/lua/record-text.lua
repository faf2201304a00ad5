-- A record's JSON text, read and rewritten field by field (for the steps, before step-helpers.lua).
-- Its top-level fields are kept as the JSON text they were written as, and only the fields a rule
-- changes are replaced, by text the TypeScript side made (JSON.stringify) or an integer. Re-encoding with cjson would change a record: it writes numbers
-- with 14 significant digits (a seq has 16) and an empty array as {} (inside a provider's event).

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
