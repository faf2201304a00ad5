-- journal (a step of steps.lua): journals the records of a send, unless its first key is
-- journaled already; a send of a message is fenced by the token of the message's run.
-- Keys: with a message, the batch's inbox group (its entries hash); with records, its outbox
--   group. In a Cluster the two are in different slots, so the fence and the records are two steps
--   in two batches: the fence alone, then the records with no message.
-- Arguments: the message's id ('' for a send outside one), its run's fencing token; then 5 per
--   record: key, envelope, state, state index member, due score ('' for none).
-- Answers {'journaled'}, {'fenced'}, or {'recorded', the envelope of the first key}.

local function journal(arg, count, groups)
  if arg(1) ~= '' then
    local envelope = redis.call('HGET', groups.inbox.entries, arg(1))
    if not envelope then return { 'fenced' } end
    local head, value = opened(envelope)
    if is_fenced(head[2], record_of(value), tonumber(arg(2))) then return { 'fenced' } end
  end
  if count < 3 then return { 'journaled' } end
  local outbox = groups.outbox
  local first = redis.call('HGET', outbox.entries, arg(3))
  if first then
    confirm_found(outbox.entries, arg(3), first)
    return { 'recorded', first }
  end
  for i = 3, count, 5 do
    -- The first key was just read: only a later part of a split text may be there already.
    if i == 3 or redis.call('HEXISTS', outbox.entries, arg(i)) == 0 then
      put_new(outbox, arg(i), arg(i + 1), arg(i + 2), arg(i + 3), arg(i + 4))
    end
  end
  return { 'journaled' }
end
