-- Sliding window counter: fixed windows aligned to the epoch; a call is weighed against the current
-- window's count plus the previous window's count scaled by the share of the previous window that
-- still lies within the last window_us (Cloudflare's approximation). Several limits (one key each)
-- are checked together and charged all or nothing. All weighing is in integers: counts times µs.
--
-- KEYS[i]        limit i's hash: field w = current window index (now / window_us), c = its count,
--                p = the previous window's count, l = window_us they were counted under
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..limit of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (permits per window), window_us (>= 1000), burst (unused here)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining,
-- retry_after_us (0 when it admits: exactly when the call would fit), reset_after_us (until the
-- weighted count is back to zero). The call is granted, and every limit charged, only if every
-- limit admits it, and a refused call writes nothing (but a repaired TTL). Every key written
-- expires when its current window has become previous and run out; the TTL is set when a window's
-- fields are written, and a key found without one is repaired when a call is refused or the next
-- window starts.
--
-- Commands on the server's clock: a granted call TIME, HMGET, HINCRBY (HSET and PEXPIRE instead when it
-- is the first of its window); a refused call TIME, HMGET, PTTL.

-- permits, peek, now, clock(), int(), states and reply come from prelude.lua

-- The first loop reads every key, the second charges them if every limit admits the call. One limit's
-- state is kept in these locals from one loop to the next; with several, in states[i] (see prelude.lua).
-- index: the current window; t: the time the weights are taken at (now, or later after a clock step
-- back); same: whether the stored fields describe the current window, so that a grant only increments.
local granted = true
local limit, window, index, t, current, previous, same
for i = 1, #KEYS do
  limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  t = clock()
  index = math.floor(t / window)
  local state = redis.pcall('HMGET', KEYS[i], 'w', 'c', 'p', 'l')
  if state.err then
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    state = {false, false, false, false}
  end
  local stored = tonumber(state[1])
  current, previous, same = tonumber(state[2]) or 0, tonumber(state[3]) or 0, false
  if state[4] ~= ARGV[3 * i + 1] then
    -- counted under another window length (or not at all): those windows do not line up with these
    previous, current = 0, 0
  elseif stored and stored > index then
    -- the clock stepped back across a window boundary: keep the newer window, weighed at its start
    index, t, same = stored, stored * window, true
  elseif stored == index then
    same = true
  elseif stored == index - 1 then
    previous, current = current, 0
  else
    previous, current = 0, 0
  end
  if previous * (window - (t - index * window)) + (current + permits) * window > limit * window then
    granted = false
  end
  if states then
    states[i] = {limit, window, index, t, current, previous, same}
  end
end

for i = 1, #KEYS do
  if states then
    limit, window, index, t, current, previous, same = unpack(states[i])
  end
  local elapsed = t - index * window
  local admits = previous * (window - elapsed) + (current + permits) * window <= limit * window
  local retry_after = 0
  if not admits then
    -- within this window: the previous count's weight must shrink to what is left of the limit
    local left = limit - permits - current
    if left >= 0 and previous > 0 then
      local fits_at = window - math.floor(left * window / previous)
      if fits_at < window then
        retry_after = fits_at - elapsed
      end
    end
    if retry_after == 0 then
      -- in the next window, where this window's count is the previous one
      local fits_at = (current > 0) and (window - math.floor((limit - permits) * window / current)) or 0
      retry_after = (window - elapsed) + math.min(fits_at, window)
    end
  end
  if peek then
    -- nothing is written
  elseif granted then
    if same then
      redis.call('HINCRBY', KEYS[i], 'c', ARGV[2])
    else
      redis.call('HSET', KEYS[i], 'w', int(index), 'c', ARGV[2], 'p', int(previous), 'l', ARGV[3 * i + 1])
      redis.call('PEXPIRE', KEYS[i], int(math.ceil(((index + 2) * window - now) / 1000)))
    end
    current = current + permits
  elseif redis.call('PTTL', KEYS[i]) == -1 then
    redis.call('PEXPIRE', KEYS[i], int(math.ceil(((index + 2) * window - now) / 1000)))
  end
  local weighted = previous * (window - elapsed) + current * window
  -- times were weighed from t; after a clock step back, t lies ahead of now
  local ahead = t - now
  local reset_after = 0
  if current > 0 then
    reset_after = (window - elapsed) + window + ahead
  elseif previous > 0 then
    reset_after = window - elapsed + ahead
  end
  local remaining = math.max(math.floor((limit * window - weighted) / window), 0)
  retry_after = admits and 0 or (retry_after + ahead)
  reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = admits and 1 or 0, remaining, retry_after,
    reset_after
end
return reply
