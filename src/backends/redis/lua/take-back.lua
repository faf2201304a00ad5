-- take-back (a step of steps.lua): the sweeper's pass. Claims the chats' heads that are free (a
-- lease over or of an earlier run of this owner, a retry due, a pending head), at most `limit`; a
-- head whose runs were spent is dead-lettered and its chat goes on with its next message. A head
-- whose last run must run alone (step-rules.ts isLastRunAlone) is left where it is. Then the due
-- messages no chat list holds (an operator's replay) join the end of their chat. An alone pass
-- (argument 15, a message's id) claims that message if it still waits so, and nothing else.
-- Keys: the batch's inbox group and chats hash.
-- Arguments: 1..7 the claim (step-helpers.lua claim_at); 8 maxAttempts; 9 limit; 10 the chats
--   hash's HSCAN cursor to go on from; 11 chats looked at, at most; 12 HSCAN's COUNT; 13, 14 the
--   JSON of unfinishedRunsError before and after its number of runs; 15 the id an alone pass
--   claims, or ''.
-- Answers the cursor to go on from next time, then 2 per message taken: 1 if dead-lettered, 2 if
--   left to an alone pass (else 0), and its record (JSON).

-- isLastRunAlone: the next run is the last, and the run before it never ended.
local function last_run_alone(state, record, max_attempts)
  return state == 'processing' and (field_of(record, 'attempts') or 0) + 1 == max_attempts
end

local function take_back(arg, _, groups)
  local inbox, chats = groups.inbox, groups.chats
  local claim = claim_at(arg, 1)
  local max_attempts, limit, looked_max = tonumber(arg(8)), tonumber(arg(9)), tonumber(arg(11))
  local spent = { before = arg(13), after = arg(14) }
  local out = { '0' }
  local taken = 0

  if arg(15) ~= '' then
    -- A processing message is its chat's head: only the head runs.
    local envelope = redis.call('HGET', inbox.entries, arg(15))
    if not envelope then return out end
    local head, value = opened(envelope)
    local record = record_of(value)
    if is_free(head[2], record, claim) and last_run_alone(head[2], record, max_attempts) then
      out[2] = 0
      out[3] = claim_record(inbox, arg(15), head, record, claim)
    end
    return out
  end

  local function take_chat(chat, list)
    local id, envelope
    list, id, envelope = head_of(inbox, list)
    while id do
      local head, value = opened(envelope)
      local record = record_of(value)
      if not is_free(head[2], record, claim) then break end
      taken = taken + 1
      if last_run_alone(head[2], record, max_attempts) then
        out[#out + 1] = 2
        out[#out + 1] = value
        break
      end
      if (field_of(record, 'attempts') or 0) < max_attempts then
        out[#out + 1] = 0
        out[#out + 1] = claim_record(inbox, id, head, record, claim)
        break
      end
      out[#out + 1] = 1
      out[#out + 1] = spend_record(inbox, id, head, record, claim, spent)
      list, id, envelope = head_of(inbox, rest_of(list))
    end
    save_chat(chats, chat, list)
  end

  local cursor, looked = arg(10), 0
  repeat
    local page = redis.call('HSCAN', chats, cursor, 'COUNT', arg(12))
    cursor = page[1]
    for n = 1, #page[2], 2 do
      if taken >= limit then break end
      take_chat(page[2][n], page[2][n + 1])
      looked = looked + 1
    end
  until cursor == '0' or taken >= limit or looked >= looked_max
  out[1] = cursor

  if taken < limit then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', inbox.due, '-inf', claim.json, 'LIMIT', 0, limit - taken)) do
      local envelope = redis.call('HGET', inbox.entries, id)
      if envelope then
        local _, value = opened(envelope)
        local chat = chat_key(field_of(record_of(value), 'chatId'))
        local list = chat_list(chats, chat)
        if not string.find('\0' .. list, '\0' .. id .. '\0', 1, true) then save_chat(chats, chat, list .. id .. '\0') end
      end
    end
  end
  return out
end
