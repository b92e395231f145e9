-- Concurrency: at most limit slots of a key held at once, across every caller. A slot is held under a lease: it is
-- given back by slot.lua ('release'), or ends by itself when its lease ends without a renewal ('renew'), so that
-- the slots of a caller that crashed come back. The limiter prepends prelude.lua; together.lua runs it as
-- decide[6], beside the algorithms' scripts, so that a request's slot and its rate limits are decided in one call,
-- all or nothing.
--
-- KEYS[1]  the key's sorted set: member = a slot's id, score = when its lease ends, in µs since the epoch
-- ARGV[1]  now in µs since the epoch, or "" for the Redis server's clock (see prelude.lua)
-- ARGV[2]  1; negative to only read what a call would be told, writing nothing
-- ARGV[3]  limit: slots held at once
-- ARGV[4]  lease_us: how long a slot is held without a renewal
-- ARGV[5]  the id of the slot this call takes
--
-- Returns four integers, as the algorithms' scripts do: admits (1|0), remaining (slots free after this call),
-- retry_after_us (0 when it admits; else until the first lease ends, at most 1 s: slots are usually given back
-- long before their leases end), reset_after_us (0 when no slot is held, else as retry_after_us would be).
--
-- Commands: a granted call ZCOUNT, ZREMRANGEBYSCORE, ZADD, PTTL (and PEXPIRE when the key would expire before
-- this lease ends); a refused call ZCOUNT, ZRANGE (the first lease end).

-- permits, peek, clock(), int() and reply come from prelude.lua

local key, limit, lease = KEYS[1], ARGV[3] + 0, ARGV[4] + 0
local t = clock()
local held = redis.pcall('ZCOUNT', key, '(' .. int(t), '+inf')
if type(held) ~= 'number' then
  -- a key of another type would fail every call: start afresh
  if not peek then
    redis.call('DEL', key)
  end
  held = 0
end
local admits = held + permits <= limit
if admits and not peek then
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(t))
  redis.call('ZADD', key, int(t + lease), ARGV[5])
  -- the key lives as long as its longest lease
  local ms = math.ceil(lease / 1000)
  if redis.call('PTTL', key) < ms then
    redis.call('PEXPIRE', key, int(ms))
  end
  held = held + permits
end
local soon = 0
if held > 0 and (not admits or peek) then
  local first = redis.call('ZRANGEBYSCORE', key, '(' .. int(t), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  soon = (#first == 2) and math.min(first[2] - t, 1000000) or 1000
  if soon < 1000 then
    soon = 1000
  end
elseif held > 0 then
  soon = 1000000
end
reply[1], reply[2], reply[3], reply[4] = admits and 1 or 0, (held < limit) and limit - held or 0,
  admits and 0 or soon, soon
return reply
