-- Fixed window: a key's window opens with its first permit and lasts window_us; up to limit permits
-- are granted in it. Several limits (one key each) are checked together and charged all or nothing.
--
-- KEYS[i]        limit i's hash: field s = window start (µs since the epoch), field n = permits taken
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..limit of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (permits per window), window_us (>= 1000), burst (unused here)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining,
-- retry_after_us (0 when it admits), reset_after_us (until the key is back to full). The call is
-- granted, and every limit charged, only if every limit admits it; otherwise nothing is charged.
-- Every key written gets a TTL ending with its window; a key found without one is repaired.

-- now, permits, peek and int() come from prelude.lua

local starts, counts, granted = {}, {}, true
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local state = redis.pcall('HMGET', KEYS[i], 's', 'n')
  if state.err then
    -- a key of another type (the seed's plain counter, say) would fail every call: start afresh
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    state = {false, false}
  end
  local start, count = tonumber(state[1]), tonumber(state[2])
  if not start or not count or now >= start + window then
    start, count = now, 0
  end
  starts[i], counts[i] = start, count
  if count + permits > limit then
    granted = false
  end
end

local reply = {}
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local start, count = starts[i], counts[i]
  local window_left = start + window - now
  local admits = count + permits <= limit
  if granted and not peek then
    count = count + permits
    redis.call('HSET', KEYS[i], 's', int(start), 'n', int(count))
    redis.call('PEXPIRE', KEYS[i], math.ceil(window_left / 1000))
  elseif not peek and redis.call('PTTL', KEYS[i]) == -1 then
    -- a key without a TTL (left by hand, or by older code) is repaired, or dropped when stale
    if count > 0 then
      redis.call('PEXPIRE', KEYS[i], math.ceil(window_left / 1000))
    else
      redis.call('DEL', KEYS[i])
    end
  end
  reply[4 * i - 3] = admits and 1 or 0
  -- a limit lowered since the key filled can leave count above it
  reply[4 * i - 2] = math.max(limit - count, 0)
  reply[4 * i - 1] = admits and 0 or window_left
  reply[4 * i] = (count > 0) and window_left or 0
end
return reply
