-- due: the entries due by a time, soonest first (ties by key).
-- KEYS[1] entries hash, KEYS[2] due index.
-- ARGV[1] until (a score, inclusive), ARGV[2] limit.
-- Returns key, envelope, key, envelope, ...

local keys = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
return pairs_of(KEYS[1], keys)
