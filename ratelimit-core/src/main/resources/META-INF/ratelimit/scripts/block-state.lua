-- A key's block, read or set by hand (see block.lua for the hash it keeps).
--
-- KEYS[1]  the key's block
-- ARGV[1]  now in µs since the epoch, or "" for the Redis server's clock
-- ARGV[2]  "" to only read; else the length in µs of a block to start now, replacing any other
-- ARGV[3]  how long past its end a block set by hand is kept, in µs (the policy's block_for)
--
-- Returns {left}: µs until the key's block ends, 0 when it is not blocked.

local now = ARGV[1]
if now == '' then
  local time = redis.call('TIME')
  now = time[1] * 1000000 + time[2]
else
  now = tonumber(now)
end
if ARGV[2] ~= '' then
  local length = tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'u', string.format('%d', now + length), 'd', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil((length + tonumber(ARGV[3])) / 1000)))
  return {length}
end
local ends = tonumber(redis.call('HGET', KEYS[1], 'u'))
if ends and ends > now then
  return {ends - now}
end
return {0}
