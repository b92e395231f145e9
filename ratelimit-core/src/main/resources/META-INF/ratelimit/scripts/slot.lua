-- Slot: gives back, or renews, a slot concurrency.lua granted. The limiter prepends prelude.lua.
--
-- KEYS[1]  the key's sorted set (see concurrency.lua)
-- ARGV[1]  now in µs since the epoch, or "" for the Redis server's clock (see prelude.lua)
-- ARGV[2]  1
-- ARGV[3]  'release' or 'renew'
-- ARGV[4]  the slot's id
-- ARGV[5]  lease_us, for 'renew': the slot is held until now + lease_us
--
-- Returns, for 'release', {1} when the slot was held and is given back, {0} when it was not (given back already, or
-- its lease ended). For 'renew', {1} when the slot was held until now, {0} when its lease had ended (Redis did not
-- answer the renewals in time: a pause, a failover): its holder still works, so the slot is taken back all the
-- same, past the limit if another call has its place meanwhile, and no new call is granted until the key is under
-- its limit again (concurrency.lua counts every slot held). Either way the slot is held until now + lease_us.
--
-- Commands: 'release' ZREM; 'renew' ZSCORE, ZADD, PTTL (and PEXPIRE when the key would expire before the lease ends).

-- clock() and int() come from prelude.lua

local key, id = KEYS[1], ARGV[4]
if ARGV[3] == 'release' then
  return {redis.call('ZREM', key, id)}
end
local t = clock()
local ends = redis.call('ZSCORE', key, id)
local lease = ARGV[5] + 0
redis.call('ZADD', key, int(t + lease), id)
local ms = math.ceil(lease / 1000)
if redis.call('PTTL', key) < ms then
  redis.call('PEXPIRE', key, int(ms))
end
return {(ends and ends + 0 > t) and 1 or 0}
