-- journal-send: journals the records of a send, unless its first key is journaled already; a send
-- of a message is fenced by the token of the message's run.
-- KEYS: with a message, its inbox entries hash first; then, with records, the outbox group
--   (entries hash, due index, states set, one state index per OUTBOX_STATES). In a Cluster the
--   two are in different slots, so the fence and the records go in two calls.
-- ARGV[1] the message's id ('' for a send outside one), ARGV[2] its run's fencing token; then 5
--   per record: key, envelope, state, state index member, due score ('' for none).
-- Returns {'journaled'}, {'fenced'}, or {'recorded', the envelope of the first key}.

local offset = 0
if ARGV[1] ~= '' then
  offset = 1
  local envelope = redis.call('HGET', KEYS[1], ARGV[1])
  if not envelope then return { 'fenced' } end
  local head, value = opened(envelope)
  if is_fenced(head[2], record_of(value), tonumber(ARGV[2])) then return { 'fenced' } end
end
if #ARGV < 3 then return { 'journaled' } end
local outbox = group_at(offset, OUTBOX_STATES)
local first = redis.call('HGET', outbox.entries, ARGV[3])
if first then return { 'recorded', first } end
for i = 3, #ARGV, 5 do
  if redis.call('HEXISTS', outbox.entries, ARGV[i]) == 0 then
    put_new(outbox, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
  end
end
return { 'journaled' }
