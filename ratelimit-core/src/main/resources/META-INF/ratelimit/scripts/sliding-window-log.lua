-- Sliding window log: every permit is a sorted-set entry scored with its time; a call may take
-- permits while fewer than limit entries lie within the last window_us, (now - window_us, now].
--
-- KEYS[1]  the key's sorted set: one member per permit, scored with its time in µs
-- ARGV[1]  now in µs since the epoch, or "" to read the Redis server's TIME
-- ARGV[2]  limit: permits per window (>= 1)
-- ARGV[3]  window_us: window length in µs (>= 1000)
-- ARGV[4]  permits: how many this call takes (1..limit)
--
-- Returns {allowed (1|0), remaining, retry_after_us (0 when allowed), reset_after_us}.
-- A rejected call takes nothing. Every call leaves the key with a TTL that outlives its newest entry.

local key = KEYS[1]
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local permits = tonumber(ARGV[4])

local function int(x)
  return string.format('%.0f', x)
end

local removed = redis.pcall('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
if type(removed) == 'table' and removed.err then
  -- a key of another type would fail every call: start afresh
  redis.call('DEL', key)
end
local count = redis.call('ZCARD', key)
local allowed = count + permits <= limit

if allowed then
  -- members must be unique: calls within the same microsecond each add their own entries
  local score = int(now)
  local seq = count
  for _ = 1, permits do
    seq = seq + 1
    while redis.call('ZADD', key, 'NX', score, score .. ':' .. seq) == 0 do
      seq = seq + limit
    end
  end
  count = count + permits
end

local newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
local reset_after = math.max(newest + window - now, 0)
local ttl_ms = math.max(math.ceil(reset_after / 1000), 1)

if allowed then
  redis.call('PEXPIRE', key, ttl_ms)
  return {1, limit - count, 0, reset_after}
end

-- the call fits once the (count + permits - limit) oldest entries have left the window
local blocking = redis.call('ZRANGE', key, count + permits - limit - 1, count + permits - limit - 1, 'WITHSCORES')
local retry_after = tonumber(blocking[2]) + window - now
if redis.call('PTTL', key) < 0 then
  redis.call('PEXPIRE', key, ttl_ms)
end
-- a smaller limit than the one the key was filled under can leave count above limit
return {0, math.max(limit - count, 0), retry_after, reset_after}
