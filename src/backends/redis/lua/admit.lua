-- admit (a step of steps.lua): dedupes an inbound message by id, then journals it: as given
-- (claimed by the caller's run) when its chat has no unfinished message, queued (pending,
-- uncharged) otherwise; either way it joins the end of its chat's list.
-- Keys: the batch's inbox group and chats hash.
-- Arguments: the id, the chat (its JSON text), the state index member; then the record as run
--   (4..6) and as queued (7..9), each: envelope, state, due score ('' for none).
-- Answers {'run'}, {'queued'}, or {'duplicate', the envelope admitted before}.

local function admit(arg, _, groups)
  local inbox, chats = groups.inbox, groups.chats
  local id, chat = arg(1), chat_key(cjson.decode(arg(2)))
  local found = redis.call('HGET', inbox.entries, id)
  if found then
    confirm_found(inbox.entries, id, found)
    return { 'duplicate', found }
  end
  local list, head = head_of(inbox, chat_list(chats, chat))
  local at = head and 7 or 4
  put_new(inbox, id, arg(at), arg(at + 1), arg(3), arg(at + 2))
  save_chat(chats, chat, list .. id .. '\0')
  return { head and 'queued' or 'run' }
end
