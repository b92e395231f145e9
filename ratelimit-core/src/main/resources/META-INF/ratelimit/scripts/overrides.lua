-- Overrides: reads every override in force, dropping those whose end has passed by the Redis server's clock.
--
-- KEYS[1]  the hash of every override (see override.lua)
--
-- Returns {now, field, value, field, value, ...}: the server's time in ms since the epoch, then each override in
-- force.

local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local fields = redis.call('HGETALL', KEYS[1])
local live = {now}
for i = 1, #fields, 2 do
  local ends = tonumber(string.match(fields[i + 1], '^(%d+)'))
  if ends ~= 0 and ends <= now then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    live[#live + 1] = fields[i]
    live[#live + 1] = fields[i + 1]
  end
end
return live
