-- Prelude of every limiter script: the limiter prepends it to the algorithm's file when it loads the
-- script, so that each script is still one EVALSHA. It reads the arguments all algorithms share.
--
-- ARGV[1]  now in µs since the epoch, or "" to read the Redis server's TIME
-- ARGV[2]  permits the call takes; negative to only read what a call for that many would be told,
--          writing nothing
--
-- Defines: permits (>= 1), peek (true when nothing may be written), now (the caller's time in µs, or
-- false when the server's clock decides), clock() (now, reading the server's TIME the first time it is
-- needed: a script that can decide without the time never calls TIME), int(x) (an integer as the
-- decimal string a command takes), states and reply (below).
--
-- Cost matters here: every call pays for what the scripts do. They pass commands strings, the
-- arguments' own where they can and int() where they compute one: redis.call formats a Lua number
-- with %.17g, a floating-point conversion that costs Redis several times what '%d' does (and Lua's
-- own number-to-string conversion, %.14g, would lose digits of a time in µs). They convert no more
-- strings to numbers than they need, and create few tables (each is garbage for Lua's collector).

local permits = (ARGV[2] == '1') and 1 or tonumber(ARGV[2])
local peek = permits < 0
if peek then
  permits = -permits
end

local now = (ARGV[1] ~= '') and tonumber(ARGV[1])

local function int(x)
  return string.format('%d', x)
end

local function clock()
  if not now then
    local time = redis.call('TIME')
    now = time[1] * 1000000 + time[2]
  end
  return now
end

-- Several limits are decided in two loops, the first reading every limit, the second answering: a
-- limit's state passes from one to the other in the algorithm's locals, and with several limits in
-- states[i], a table per limit (states is false for one limit). The reply holds four numbers per
-- limit: reply[4i-3..4i] = admits (1|0), remaining, retry_after_us, reset_after_us; for one limit it
-- is made with its four slots. The scripts write these in place rather than through functions: a
-- function defined here is a closure made again on every call, and its call costs more than the
-- assignment (each is measured by ScriptCost -Dinstructions=true).
local states = (#KEYS > 1) and {}
local reply = states and {} or {0, 0, 0, 0}
