-- count: how many entries each state holds (ZCARD per state: no scan).
-- KEYS[1] entries hash, KEYS[2] states set.
-- Returns state, count, state, count, ... for the states that hold any.

local out = {}
for _, state in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local n = redis.call('ZCARD', KEYS[1] .. INFIX .. state)
  if n > 0 then
    out[#out + 1] = state
    out[#out + 1] = n
  end
end
return out
