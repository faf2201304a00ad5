-- settle (a step of steps.lua): writes the sent marks (whatever the fence says: the channel took
-- those sends), then the message's end, fenced by its run's token; a message done or dead leaves
-- its chat's list, and the chat's next message, when it is pending, is claimed and handed over.
-- Keys: with marks, the batch's outbox group; with an end, its inbox group and chats hash. In a
--   Cluster the two are in different slots, so the marks and the end are two steps in two batches.
-- Arguments: how many marks; 2..8 the claim (step-helpers.lua claim_at); then 2 per mark: its key,
--   the provider's message id (JSON); then, with an end: the message's id, its run's token, the
--   end's state, and its details: done: the note (JSON, '' for none); failed: the error (JSON) and
--   the retry time (JSON); dead: the error (JSON).
-- Answers {'settled'}, {'settled', the next message's record (JSON)} or {'fenced'}.

-- sentOutboxRecord, on each mark's record not sent yet.
local function write_marks(outbox, arg, marks, claim)
  for i = 9, 8 + 2 * marks, 2 do
    local envelope = redis.call('HGET', outbox.entries, arg(i))
    if envelope then
      local head, value = opened(envelope)
      if head[2] ~= 'sent' then
        local record = record_of(value)
        set(record, 'state', '"sent"')
        set(record, 'attempts', int((field_of(record, 'attempts') or 0) + 1))
        set(record, 'providerMessageId', arg(i + 1))
        set(record, 'lease', 'null')
        set(record, 'nextAttemptAt', 'null')
        set(record, 'lastError', 'null')
        set(record, 'updatedAt', claim.json)
        put_over(outbox, arg(i), head, 'sent', json_of(record), nil, claim)
      end
    end
  end
end

local function settle(arg, count, groups)
  local marks = tonumber(arg(1))
  local claim = claim_at(arg, 2)
  if marks > 0 then write_marks(groups.outbox, arg, marks, claim) end
  local e = 9 + 2 * marks
  if count < e then return { 'settled' } end

  local inbox, chats = groups.inbox, groups.chats
  local id, ended = arg(e), arg(e + 2)
  local envelope = redis.call('HGET', inbox.entries, id)
  if not envelope then return { 'fenced' } end
  local head, value = opened(envelope)
  local record = record_of(value)
  if is_fenced(head[2], record, tonumber(arg(e + 1))) then return { 'fenced' } end
  -- endedRecord
  set(record, 'state', '"' .. ended .. '"')
  set(record, 'lease', 'null')
  set(record, 'nextAttemptAt', 'null')
  set(record, 'updatedAt', claim.json)
  local due = nil
  if ended == 'done' then
    if arg(e + 3) ~= '' then set(record, 'note', arg(e + 3)) end
  elseif ended == 'failed' then
    set(record, 'nextAttemptAt', arg(e + 4))
    set(record, 'lastError', arg(e + 3))
    due = arg(e + 4)
  else
    set(record, 'lastError', arg(e + 3))
  end
  put_over(inbox, id, head, ended, json_of(record), due, claim)
  if ended == 'failed' then return { 'settled' } end

  local chat = chat_key(field_of(record, 'chatId'))
  local list, next_id, next_envelope = head_of(inbox, without(chat_list(chats, chat), id))
  local next_value = nil
  if next_id then
    local next_head, next_json = opened(next_envelope)
    if next_head[2] == 'pending' then
      next_value = claim_record(inbox, next_id, next_head, record_of(next_json), claim)
    end
  end
  save_chat(chats, chat, list)
  if next_value then return { 'settled', next_value } end
  return { 'settled' }
end
