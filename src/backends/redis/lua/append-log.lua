-- appendLog (RedisStore): appends one message log entry and trims the log to its newest entries.
-- KEYS[1] the chat's log list.
-- ARGV[1] the entry as JSON, ARGV[2] how many entries to keep.
-- Returns the log's length after trimming.

redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
return redis.call('LLEN', KEYS[1])
