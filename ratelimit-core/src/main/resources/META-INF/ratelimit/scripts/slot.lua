-- Slot: gives back, or renews, a slot concurrency.lua granted. The limiter prepends prelude.lua.
--
-- KEYS[1]  the key's sorted set (see concurrency.lua)
-- ARGV[1]  now in µs since the epoch, or "" for the Redis server's clock (see prelude.lua)
-- ARGV[2]  1
-- ARGV[3]  'release' or 'renew'
-- ARGV[4]  the slot's id
-- ARGV[5]  lease_us, for 'renew': the slot is held until now + lease_us
--
-- Returns {1} when the slot was held (and is given back, or renewed), {0} when it was not: given back already, or
-- its lease ended (another caller may hold its place now; a renewal then takes nothing).

-- clock() and int() come from prelude.lua

local key, id = KEYS[1], ARGV[4]
if ARGV[3] == 'release' then
  return {redis.call('ZREM', key, id)}
end
local t = clock()
local ends = redis.call('ZSCORE', key, id)
if not ends or ends + 0 <= t then
  if ends then
    redis.call('ZREM', key, id)
  end
  return {0}
end
local lease = ARGV[5] + 0
redis.call('ZADD', key, int(t + lease), id)
local ms = math.ceil(lease / 1000)
if redis.call('PTTL', key) < ms then
  redis.call('PEXPIRE', key, int(ms))
end
return {1}
