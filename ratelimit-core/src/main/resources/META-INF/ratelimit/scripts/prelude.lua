-- Prelude of every limiter script: the limiter prepends it to the algorithm's file when it loads the
-- script, so that each script is still one EVALSHA. It reads the arguments all algorithms share.
--
-- ARGV[1]  now in µs since the epoch, or "" to read the Redis server's TIME
-- ARGV[2]  permits the call takes; negative to only read what a call for that many would be told,
--          writing nothing
--
-- Defines: now (µs), permits (>= 1), peek (true when nothing may be written), int(x) (an integer as
-- an exact decimal string: redis.call would format large doubles with an exponent).

local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local permits = tonumber(ARGV[2])
local peek = permits < 0
if peek then
  permits = -permits
end

local function int(x)
  return string.format('%.0f', x)
end

