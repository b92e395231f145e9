-- Token bucket: a bucket holds up to burst tokens and refills limit tokens evenly over window_us; a
-- call takes one token per permit. Tokens are counted in units of 1/window_us of a token, so that the
-- refill (limit units per µs) stays in integers. Several limits (one key each) are checked together
-- and charged all or nothing.
--
-- KEYS[i]        limit i's string "<tokens>:<refilled at>:<counted in>": tokens in units of
--                1/window_us of a token, the time of the last refill in µs, and the window_us the tokens
--                are counted in. (A hash with fields t, ts and w, written by earlier versions, is read
--                the same way and replaced by the string when a call is granted.)
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..burst of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (tokens per window), window_us (>= 1000), burst (capacity, >= 1)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining
-- (whole tokens left), retry_after_us (0 when it admits: exactly when enough tokens are back),
-- reset_after_us (until the bucket is full). The call is granted, and every limit charged, only if
-- every limit admits it, and a refused call writes nothing (but a repaired TTL). Every key written
-- expires when its bucket is full again; a key found without a TTL is repaired.
--
-- Commands on the server's clock: a granted call TIME, GET, SET; a refused call TIME, GET, PTTL.

-- permits, peek, now, clock(), int(), states and reply come from prelude.lua

-- The first loop reads every key, the second charges them if every limit admits the call. One limit's
-- state is kept in these locals from one loop to the next; with several, in states[i] (see prelude.lua).
-- available: tokens now, in units of 1/window_us; stamp: the time to record as the last refill.
local granted = true
local limit, window, capacity, available, stamp
for i = 1, #KEYS do
  limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  local burst = (ARGV[3 * i + 2] == ARGV[3 * i]) and limit or ARGV[3 * i + 2] + 0
  capacity = burst * window
  local value = redis.pcall('GET', KEYS[i])
  local stored, refilled_at, counted_in
  if type(value) == 'table' then
    -- a hash of the earlier format, or a key of another type, which would fail every call: start afresh
    local fields = redis.pcall('HMGET', KEYS[i], 't', 'ts', 'w')
    if fields.err then
      if not peek then
        redis.call('DEL', KEYS[i])
      end
    else
      stored, refilled_at, counted_in = tonumber(fields[1]), tonumber(fields[2]), fields[3]
    end
  elseif value then
    stored, refilled_at, counted_in = string.match(value, '^(%d+):(%d+):(%d+)$')
  end
  local t = clock()
  available, stamp = capacity, t
  if stored and refilled_at and counted_in then
    if counted_in ~= ARGV[3 * i + 1] then
      -- tokens were counted in units of another window: the same share of a token in this one's
      stored = math.floor(stored * window / counted_in)
    end
    local elapsed = t - refilled_at
    if elapsed < 0 then
      -- a clock that stepped back must not refill the same time twice
      available, stamp = stored + 0, refilled_at + 0
    elseif elapsed < math.ceil((capacity - stored) / limit) then
      -- past the time to fill up, the bucket is full: never multiply a long idle time
      available = math.min(stored + elapsed * limit, capacity)
    end
  end
  if available < permits * window then
    granted = false
  end
  if states then
    states[i] = {limit, window, capacity, available, stamp}
  end
end

for i = 1, #KEYS do
  if states then
    limit, window, capacity, available, stamp = unpack(states[i])
  end
  local admits = available >= permits * window
  if peek then
    -- nothing is written
  elseif granted then
    available = available - permits * window
    redis.call('SET', KEYS[i], string.format('%d:%d:%d', available, stamp, window), 'PX',
      int(math.max(math.ceil(math.ceil((capacity - available) / limit) / 1000), 1)))
  elseif redis.call('PTTL', KEYS[i]) == -1 then
    redis.call('PEXPIRE', KEYS[i], int(math.max(math.ceil(math.ceil((capacity - available) / limit) / 1000), 1)))
  end
  -- a last refill that lies ahead (a debt charge.lua took, or a clock that stepped back) delays every token
  local ahead = math.max(stamp - clock(), 0)
  local remaining, retry_after = math.floor(available / window),
    admits and 0 or math.ceil((permits * window - available) / limit) + ahead
  local reset_after = math.ceil((capacity - available) / limit) + ahead
  reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = admits and 1 or 0, remaining, retry_after,
    reset_after
end
return reply
