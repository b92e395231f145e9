-- Fixed window: a window opens with a key's first permit and lasts window_us; permits are counted in it.
--
-- KEYS[1]  the key's hash: field s = window start (µs since the epoch), field n = permits taken
-- ARGV[1]  now in µs since the epoch, or "" to read the Redis server's TIME
-- ARGV[2]  limit: permits per window (>= 1)
-- ARGV[3]  window_us: window length in µs (>= 1000)
-- ARGV[4]  permits: how many this call takes (1..limit)
--
-- Returns {allowed (1|0), remaining, retry_after_us (0 when allowed), reset_after_us}.
-- A rejected call takes nothing. Every call leaves the key with a TTL ending at its window's end.

local key = KEYS[1]
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local permits = tonumber(ARGV[4])

-- integers as exact decimal strings: redis.call would format large doubles with an exponent
local function int(x)
  return string.format('%.0f', x)
end

local state = redis.pcall('HMGET', key, 's', 'n')
if state.err then
  -- a key of another type (the seed's plain counter, say) would fail every call: start afresh
  redis.call('DEL', key)
  state = {false, false}
end
local start = tonumber(state[1])
local count = tonumber(state[2])
if not start or not count or now >= start + window then
  start = now
  count = 0
end
local reset_after = start + window - now
local ttl_ms = math.ceil(reset_after / 1000)

if count + permits <= limit then
  count = count + permits
  redis.call('HSET', key, 's', int(start), 'n', int(count))
  redis.call('PEXPIRE', key, ttl_ms)
  return {1, limit - count, 0, reset_after}
end

-- a key left without a TTL (by hand, or by a crash elsewhere) is repaired here
if redis.call('PTTL', key) < 0 then
  redis.call('PEXPIRE', key, ttl_ms)
end
-- a smaller limit than the one the key was filled under can leave count above limit
return {0, math.max(limit - count, 0), reset_after, reset_after}
