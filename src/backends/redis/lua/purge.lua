-- purge: deletes the oldest entries of one state below a time, at most a limit.
-- KEYS[1] entries hash, KEYS[2] due index, KEYS[3] the state's index.
-- ARGV[1] upper lex bound ('(' .. timeHex(olderThan)), ARGV[2] limit.
-- Returns how many entries it deleted.

local members = redis.call('ZRANGEBYLEX', KEYS[3], '-', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #members == 0 then return 0 end
local keys = {}
for i, member in ipairs(members) do keys[i] = member_key(member) end
chunked('HDEL', KEYS[1], keys)
chunked('ZREM', KEYS[2], keys)
chunked('ZREM', KEYS[3], members)
return #members
