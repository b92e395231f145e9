-- Override: sets or removes one key's override of its rule's limits, in the hash of every override, and gives the
-- hash the TTL of its longest-lived override (none while an override without a duration is in it).
--
-- KEYS[1]  the hash of every override: field <rule>\n<key>, value <expires>\n<limits>, where <expires> is the end
--          in ms since the epoch by the Redis server's clock (0 for never) and <limits> is
--          <limit>/<window in ms>/<burst>[,...]
-- ARGV[1]  the field
-- ARGV[2]  the limits to set, or "" to remove the override
-- ARGV[3]  the override's duration in ms, or "" for no end (ignored on removal)
--
-- Returns {now, expires, removed}: the server's time in ms, the override's end (0 for never, or on removal) and
-- how many fields were removed (0 or 1).

local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local expires = 0
local removed = 0
if ARGV[2] == '' then
  removed = redis.call('HDEL', KEYS[1], ARGV[1])
else
  if ARGV[3] ~= '' then
    expires = now + tonumber(ARGV[3])
  end
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', expires) .. '\n' .. ARGV[2])
end
-- the hash lives as long as its longest-lived override; expired ones are dropped on the way
local fields = redis.call('HGETALL', KEYS[1])
local last = -1
for i = 1, #fields, 2 do
  local ends = tonumber(string.match(fields[i + 1], '^(%d+)'))
  if ends == 0 then
    last = 0
  elseif ends <= now then
    redis.call('HDEL', KEYS[1], fields[i])
  elseif last ~= 0 and ends > last then
    last = ends
  end
end
if last == 0 then
  redis.call('PERSIST', KEYS[1])
elseif last > 0 then
  redis.call('PEXPIREAT', KEYS[1], string.format('%d', last))
end
return {now, expires, removed}
