-- Blocking: a key a limit refuses stays refused for a while, on every instance. The limiter loads the
-- algorithm's script as a function decide(KEYS, ARGV) (the prelude and the algorithm's file), then the
-- prelude again and this file, so that a blocking decision is still one EVALSHA.
--
-- KEYS[1]      the key's block, a hash: u = when the block ends, d = how long it lasts (µs). It is kept
--              block_for past its end, so that a refusal within that time is a repeat offence
-- KEYS[2..]    the algorithm's keys
-- ARGV[1..n]   the algorithm's arguments: now in µs or "" for the server's clock, permits (negative to
--              only read what a call would be told), then limit, window_us and burst per limit
-- ARGV[n+1]    block_for_us: how long a first block lasts
-- ARGV[n+2]    multiplier: how much longer a block that follows within block_for of the previous one lasts
-- ARGV[n+3]    max_us: the longest block
-- ARGV[n+4]    '1' when a refusal starts a block (a decision, or a check before a charge), '0' to only read
--
-- Returns what the algorithm returns, four integers per limit. While the key is blocked the algorithm
-- is not asked (nothing is charged) and every limit answers 0 (refused), 0 remaining, and retry_after
-- and reset_after the time left of the block. A refusal that starts a block answers every limit refused,
-- its retry_after and reset_after at least the block's length.
--
-- Commands: a key never blocked costs one HMGET on top of the algorithm's; a blocked one HMGET (and
-- TIME on the server's clock); a refusal that starts a block HSET and PEXPIRE more.

-- now, clock(), int() and reply come from prelude.lua, which read ARGV[1] and ARGV[2] as the algorithm does

local n = #ARGV - 4
local block = redis.call('HMGET', KEYS[1], 'u', 'd')
local ends = tonumber(block[1])
if ends and ends > clock() then
  local left = ends - clock()
  for i = 1, (n - 2) / 3 do
    reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = 0, 0, left, left
  end
  return reply
end

local keys, args = {}, {}
for j = 2, #KEYS do
  keys[j - 1] = KEYS[j]
end
for j = 1, n do
  args[j] = ARGV[j]
end
local decided = decide(keys, args)
if ARGV[n + 4] ~= '1' then
  return decided
end
local refused = false
for j = 1, #decided, 4 do
  if decided[j] ~= 1 then
    refused = true
  end
end
if refused then
  local block_for = tonumber(ARGV[n + 1])
  local length = block_for
  if ends and clock() - ends <= block_for then
    -- a repeat offender: longer than the previous block
    length = math.min(math.floor(tonumber(block[2]) * tonumber(ARGV[n + 2])), tonumber(ARGV[n + 3]))
  end
  redis.call('HSET', KEYS[1], 'u', int(clock() + length), 'd', int(length))
  redis.call('PEXPIRE', KEYS[1], int(math.ceil((length + block_for) / 1000)))
  for j = 1, #decided, 4 do
    decided[j] = 0
    decided[j + 2] = math.max(decided[j + 2], length)
    decided[j + 3] = math.max(decided[j + 3], length)
  end
end
return decided
