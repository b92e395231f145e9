-- Blocking: a key a limit refuses stays refused for a while, on every instance. The limiter loads this
-- after the algorithm's script as a function decide(KEYS, ARGV) (the prelude and the algorithm's file),
-- so that a blocking decision is still one EVALSHA.
--
-- KEYS[1]    the key's block, a hash: u = when the block ends, d = how long it lasts (µs). It is kept
--            block_for past its end, so that a refusal within that time is a repeat offence
-- KEYS[2..]  the algorithm's keys
-- ARGV[1]    block_for_us: how long a first block lasts
-- ARGV[2]    multiplier: how much longer a block that follows within block_for of the previous one lasts
-- ARGV[3]    max_us: the longest block
-- ARGV[4]    '1' when a refusal starts a block (a decision, or a check before a charge), '0' to only read
-- ARGV[5..]  the algorithm's arguments: now in µs or "" for the server's clock, permits (negative to
--            only read what a call would be told), then limit, window_us and burst per limit
--
-- Returns what the algorithm returns, four integers per limit. While the key is blocked the algorithm
-- is not asked (nothing is charged) and every limit answers 0 (refused), 0 remaining, and retry_after
-- and reset_after the time left of the block. A refusal that starts a block answers every limit refused,
-- its retry_after and reset_after at least the block's length.
--
-- Commands: a key never blocked costs one HMGET on top of the algorithm's; a blocked one HMGET (and
-- TIME on the server's clock); a refusal that starts a block HSET and PEXPIRE more.

local now = (ARGV[5] ~= '') and tonumber(ARGV[5])
local function clock()
  if not now then
    local time = redis.call('TIME')
    now = time[1] * 1000000 + time[2]
  end
  return now
end

local block = redis.call('HMGET', KEYS[1], 'u', 'd')
local ends = tonumber(block[1])
if ends and ends > clock() then
  local left = ends - clock()
  local reply = {}
  for i = 1, (#ARGV - 6) / 3 do
    reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = 0, 0, left, left
  end
  return reply
end

local keys, args = {}, {}
for j = 2, #KEYS do
  keys[j - 1] = KEYS[j]
end
for j = 5, #ARGV do
  args[j - 4] = ARGV[j]
end
local reply = decide(keys, args)
if ARGV[4] ~= '1' then
  return reply
end
local refused = false
for j = 1, #reply, 4 do
  if reply[j] ~= 1 then
    refused = true
  end
end
if refused then
  local block_for = tonumber(ARGV[1])
  local length = block_for
  if ends and clock() - ends <= block_for then
    -- a repeat offender: longer than the previous block
    length = math.min(math.floor(tonumber(block[2]) * tonumber(ARGV[2])), tonumber(ARGV[3]))
  end
  redis.call('HSET', KEYS[1], 'u', string.format('%d', clock() + length), 'd', string.format('%d', length))
  redis.call('PEXPIRE', KEYS[1], string.format('%d', math.ceil((length + block_for) / 1000)))
  for j = 1, #reply, 4 do
    reply[j] = 0
    reply[j + 2] = math.max(reply[j + 2], length)
    reply[j + 3] = math.max(reply[j + 3], length)
  end
end
return reply
