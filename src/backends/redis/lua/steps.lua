-- steps: one call carrying a batch of the steps (steps.ts, step-batch.ts), applied in order, each
-- answered on its own: a step that fails answers {'error', why} and the ones after it still run.
-- Each step is a function of its own file (admit.lua, journal-send.lua, settle.lua, take-back.lua).
-- KEYS: the inbox group (entries hash, due index, states set, one state index per INBOX_STATES)
--   then the chats hash, and/or the outbox group (the same, per OUTBOX_STATES). In a Cluster a
--   batch holds one of the two (they are two slots); on one server, both.
-- ARGV[1] the inbox group's offset in KEYS ('' when the batch has none), ARGV[2] the outbox
--   group's; then per step: its name, how many arguments it has, and those.
-- Returns the steps' answers, in order.

local STEPS = { admit = admit, journal = journal, settle = settle, ['take-back'] = take_back }
local groups = {}
if ARGV[1] ~= '' then
  local offset = tonumber(ARGV[1])
  groups.inbox = group_at(offset, INBOX_STATES)
  groups.chats = KEYS[offset + #INBOX_STATES + 4]
end
if ARGV[2] ~= '' then groups.outbox = group_at(tonumber(ARGV[2]), OUTBOX_STATES) end

local answers = {}
local at = 3
while at <= #ARGV do
  local step, count, base = STEPS[ARGV[at]], tonumber(ARGV[at + 1]), at + 1
  local ok, answer = pcall(step, function(n) return ARGV[base + n] end, count, groups)
  -- A failed redis.call raises a table with its error; a Lua error, a string.
  if not ok then answer = { 'error', type(answer) == 'table' and answer.err or tostring(answer) } end
  answers[#answers + 1] = answer
  at = base + count + 1
end
return answers
