-- Token bucket: a bucket holds up to burst tokens and refills limit tokens evenly over window_us; a
-- call takes one token per permit. Tokens are counted in units of 1/window_us of a token, so that the
-- refill (limit units per µs) stays in integers. Several limits (one key each) are checked together
-- and charged all or nothing.
--
-- KEYS[i]        limit i's hash: field t = tokens in units of 1/window_us, field ts = last refill (µs),
--                field w = the window_us the tokens are counted in
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..burst of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (tokens per window), window_us (>= 1000), burst (capacity, >= 1)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining
-- (whole tokens left), retry_after_us (0 when it admits: exactly when enough tokens are back),
-- reset_after_us (until the bucket is full). The call is granted, and every limit charged, only if
-- every limit admits it. Every key written expires when its bucket is full again.

-- now, permits, peek and int() come from prelude.lua

local tokens, stamps, granted = {}, {}, true
for i = 1, #KEYS do
  local limit, window, burst = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  local capacity = burst * window
  local state = redis.pcall('HMGET', KEYS[i], 't', 'ts', 'w')
  if state.err then
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    state = {false, false, false}
  end
  local stored, refilled_at, counted_in = tonumber(state[1]), tonumber(state[2]), tonumber(state[3])
  if stored and counted_in and counted_in ~= window then
    -- tokens were counted in units of another window: the same share of a token in this one's
    stored = math.floor(stored * window / counted_in)
  end
  local available = capacity
  if stored and refilled_at then
    local elapsed = math.max(now - refilled_at, 0)
    -- past the time to fill up, the bucket is full: never multiply a long idle time
    if elapsed < math.ceil((capacity - stored) / limit) then
      available = math.min(stored + elapsed * limit, capacity)
    end
  end
  tokens[i] = available
  -- a clock that stepped back must not refill the same time twice
  stamps[i] = math.max(now, refilled_at or now)
  if available < permits * window then
    granted = false
  end
end

local reply = {}
for i = 1, #KEYS do
  local limit, window, burst = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  local capacity = burst * window
  local available = tokens[i]
  local admits = available >= permits * window
  if granted and not peek then
    available = available - permits * window
    redis.call('HSET', KEYS[i], 't', int(available), 'ts', int(stamps[i]), 'w', int(window))
    redis.call('PEXPIRE', KEYS[i], math.max(math.ceil(math.ceil((capacity - available) / limit) / 1000), 1))
  elseif not peek and redis.call('PTTL', KEYS[i]) == -1 then
    redis.call('PEXPIRE', KEYS[i], math.max(math.ceil(math.ceil((capacity - available) / limit) / 1000), 1))
  end
  reply[4 * i - 3] = admits and 1 or 0
  reply[4 * i - 2] = math.floor(available / window)
  reply[4 * i - 1] = admits and 0 or math.ceil((permits * window - available) / limit)
  reply[4 * i] = math.ceil((capacity - available) / limit)
end
return reply
