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
-- weighted count is back to zero). The call is granted, and every limit charged, only if every limit
-- admits it. Every key written expires when its current window has become previous and run out.

-- now, permits, peek and int() come from prelude.lua

local indexes, times, currents, previouses, granted = {}, {}, {}, {}, true
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local index = math.floor(now / window)
  local state = redis.pcall('HMGET', KEYS[i], 'w', 'c', 'p', 'l')
  if state.err then
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    state = {false, false, false, false}
  end
  local stored, current, previous = tonumber(state[1]), tonumber(state[2]) or 0, tonumber(state[3]) or 0
  local t = now
  if tonumber(state[4]) ~= window then
    -- counted under another window length (or not at all): those windows do not line up with these
    previous, current = 0, 0
  elseif stored and stored > index then
    -- the clock stepped back across a window boundary: keep the newer window, weighed at its start
    index, t = stored, stored * window
  elseif stored == index - 1 then
    previous, current = current, 0
  elseif stored ~= index then
    previous, current = 0, 0
  end
  indexes[i], times[i], currents[i], previouses[i] = index, t, current, previous
  local elapsed = t - index * window
  if previous * (window - elapsed) + (current + permits) * window > limit * window then
    granted = false
  end
end

local reply = {}
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local index, t, current, previous = indexes[i], times[i], currents[i], previouses[i]
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
  if granted and not peek then
    current = current + permits
    redis.call('HSET', KEYS[i], 'w', int(index), 'c', int(current), 'p', int(previous), 'l', int(window))
    redis.call('PEXPIRE', KEYS[i], math.ceil(((index + 2) * window - now) / 1000))
  elseif not peek and redis.call('PTTL', KEYS[i]) == -1 then
    redis.call('PEXPIRE', KEYS[i], math.ceil(((index + 2) * window - now) / 1000))
  end
  local weighted = previous * (window - elapsed) + current * window
  -- times were weighed from t; after a clock step back, t lies ahead of now
  local ahead = t - now
  reply[4 * i - 3] = admits and 1 or 0
  reply[4 * i - 2] = math.max(math.floor((limit * window - weighted) / window), 0)
  reply[4 * i - 1] = admits and 0 or (retry_after + ahead)
  if current > 0 then
    reply[4 * i] = (window - elapsed) + window + ahead
  elseif previous > 0 then
    reply[4 * i] = window - elapsed + ahead
  else
    reply[4 * i] = 0
  end
end
return reply
