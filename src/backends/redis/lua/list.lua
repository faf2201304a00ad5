-- list: one page of a state in (stateTime, key) order.
-- KEYS[1] entries hash, KEYS[2] the state's index.
-- ARGV[1] lower lex bound ('-' or '(' .. member after), ARGV[2] upper lex bound ('+' or
--   '(' .. timeHex(before)), ARGV[3] limit.
-- Returns key, envelope, key, envelope, ...

local members = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local keys = {}
for i, member in ipairs(members) do keys[i] = member_key(member) end
return pairs_of(KEYS[1], keys)
