-- admit: dedupes an inbound message by id, then journals it: as given (claimed by the caller's run)
-- when its chat has no unfinished message, queued (pending, uncharged) otherwise; either way it
-- joins the end of its chat's list.
-- KEYS: the inbox group (entries hash, due index, states set, one state index per INBOX_STATES),
--   then the chats hash (chat -> its unfinished messages).
-- ARGV[1] the id, ARGV[2] the chat (its JSON text), ARGV[3] the state index member; then the record
--   as run (ARGV[4..6]) and as queued (ARGV[7..9]), each: envelope, state, due score ('' for none).
-- Returns {'run'}, {'queued'}, or {'duplicate', the envelope admitted before}.

local inbox = group_at(0, INBOX_STATES)
local chats = KEYS[#INBOX_STATES + 4]
local id, chat = ARGV[1], ARGV[2]
local found = redis.call('HGET', inbox.entries, id)
if found then return { 'duplicate', found } end
local list, head = head_of(inbox, chat_list(chats, chat))
local at = head and 7 or 4
put_new(inbox, id, ARGV[at], ARGV[at + 1], ARGV[3], ARGV[at + 2])
save_chat(chats, chat, list .. id .. '\0')
return { head and 'queued' or 'run' }
