-- Generic cell rate algorithm: one stored time per key, the theoretical arrival time (TAT) of the
-- next permit; each permit moves it one emission interval T = window_us / limit later, and a call is
-- granted while the TAT stays within burst intervals of now. Times relative to now are counted in
-- units of 1/limit µs, so that T is the integer window_us and nothing is rounded. Several limits (one
-- key each) are checked together and charged all or nothing.
--
-- KEYS[i]        limit i's string: "<tat µs>:<remainder in 1/limit µs>"
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..burst of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (permits per window), window_us (>= 1000), burst (>= 1)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining,
-- retry_after_us (0 when it admits: exactly when the call would be granted), reset_after_us (until
-- the TAT is now, the key back to full). The call is granted, and every limit charged, only if
-- every limit admits it, and a refused call writes nothing (but a repaired TTL). Every key written
-- expires when its TAT has passed; a key found without a TTL is repaired.
--
-- A TAT far ahead (charge.lua caps it at 36,500 days) is refused with times counted from its µs, exactly.
--
-- Commands on the server's clock: a granted call TIME, GET, SET; a refused call TIME, GET, PTTL.

-- permits, peek, now, clock(), int(), states and reply come from prelude.lua

-- The first loop reads every key, the second charges them if every limit admits the call. One limit's
-- state is kept in these locals from one loop to the next; with several, in states[i] (see prelude.lua).
-- diff: how far the TAT lies ahead of now, in 1/limit µs (never behind: a late TAT restarts at now). far: false,
-- or when diff is past 2^53 (a charge far past the limit, charge.lua), {µs ahead, remainder}, the exact figures
-- the times told are counted from.
local granted = true
local limit, window, burst, diff, far
for i = 1, #KEYS do
  limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  burst = (ARGV[3 * i + 2] == ARGV[3 * i]) and limit or ARGV[3 * i + 2] + 0
  local value = redis.pcall('GET', KEYS[i])
  if type(value) == 'table' then
    -- a key of another type would fail every call: start afresh
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    value = false
  end
  diff, far = 0, false
  if value then
    local tat, remainder = string.match(value, '^(%d+):(%d+)$')
    if tat then
      diff = math.max((tat - clock()) * limit + remainder, 0)
      if diff > 9007199254740991 then
        far = {tat - clock(), remainder + 0}
      end
    end
  end
  if diff + permits * window > burst * window then
    granted = false
  end
  if states then
    states[i] = {limit, window, burst, diff, far}
  end
end

for i = 1, #KEYS do
  if states then
    limit, window, burst, diff, far = unpack(states[i])
  end
  local admits = diff + permits * window <= burst * window
  local retry_after = admits and 0 or math.ceil((diff + permits * window - burst * window) / limit)
  if far then
    -- refused: the time from the TAT's µs, so that no product leaves 2^53
    retry_after = far[1] + math.ceil((far[2] - (burst - permits) * window) / limit)
  end
  if peek then
    -- nothing is written
  elseif granted then
    diff = diff + permits * window
    redis.call('SET', KEYS[i], string.format('%d:%d', clock() + math.floor(diff / limit), diff % limit), 'PX',
      int(math.max(math.ceil(math.ceil(diff / limit) / 1000), 1)))
  elseif redis.call('PTTL', KEYS[i]) == -1 then
    -- a key without a TTL is repaired, or dropped when its TAT has passed
    if diff > 0 then
      redis.call('PEXPIRE', KEYS[i], int(math.max(math.ceil(math.ceil(diff / limit) / 1000), 1)))
    else
      redis.call('DEL', KEYS[i])
    end
  end
  local remaining = math.max(math.floor((burst * window - diff) / window), 0)
  local reset_after = far and far[1] + math.ceil(far[2] / limit) or math.ceil(diff / limit)
  reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = admits and 1 or 0, remaining, retry_after,
    reset_after
end
return reply
