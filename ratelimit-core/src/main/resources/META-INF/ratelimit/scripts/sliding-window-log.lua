-- Sliding window log: every permit is a sorted-set entry scored with its time; a call may take
-- permits while fewer than limit entries lie within (now - window_us, now]. Several limits (one key
-- each) are checked together and charged all or nothing.
--
-- KEYS[i]        limit i's sorted set: one member per permit, scored with its time in µs
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..limit of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (permits per window), window_us (>= 1000), burst (unused here)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining,
-- retry_after_us (0 when it admits), reset_after_us (until the key is back to full). The call is
-- granted, and every limit charged, only if every limit admits it; otherwise nothing is charged.
-- Every key written gets a TTL that outlives its newest entry; a key found without one is repaired.
--
-- Commands on the server's clock: a granted call TIME, ZREMRANGEBYSCORE, ZCARD, ZADD (one per permit),
-- ZCOUNT, PEXPIRE; a refused call TIME, ZREMRANGEBYSCORE, ZCARD, ZRANGE, ZRANGEBYSCORE, PTTL. Scores
-- are integers, so that the entries within the window are those from now - window_us + 1 on.

-- permits, peek, now, clock(), int(), states and reply come from prelude.lua

-- The first loop reads every key, the second charges them if every limit admits the call. One limit's
-- state is kept in these locals from one loop to the next; with several, in states[i] (see prelude.lua).
-- count: the entries within the window.
local granted = true
local limit, window, count
local t = clock()
for i = 1, #KEYS do
  limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  if peek then
    -- entries still within the window, without removing the others
    count = redis.pcall('ZCOUNT', KEYS[i], int(t - window + 1), '+inf')
    if type(count) == 'table' then
      count = 0
    end
  else
    local removed = redis.pcall('ZREMRANGEBYSCORE', KEYS[i], '-inf', int(t - window))
    if type(removed) == 'table' then
      -- a key of another type would fail every call: start afresh
      redis.call('DEL', KEYS[i])
    end
    count = redis.call('ZCARD', KEYS[i])
  end
  if count + permits > limit then
    granted = false
  end
  if states then
    states[i] = {limit, window, count}
  end
end

for i = 1, #KEYS do
  if states then
    limit, window, count = unpack(states[i])
  end
  local admits = count + permits <= limit
  if granted and not peek then
    -- members must be unique: calls within the same microsecond each add their own entries
    local score, seq = int(t), count
    for _ = 1, permits do
      seq = seq + 1
      while redis.call('ZADD', KEYS[i], 'NX', score, score .. ':' .. int(seq)) == 0 do
        seq = seq + limit
      end
    end
    count = count + permits
  end
  local reset_after = 0
  if count > 0 then
    -- the newest entry is this call's, unless the clock stepped back behind entries already there
    -- (ZCOUNT answers an integer; ZRANGE's score costs Redis a floating-point conversion)
    local newest = t
    if not granted or peek or redis.call('ZCOUNT', KEYS[i], int(t + 1), '+inf') > 0 then
      newest = redis.call('ZRANGE', KEYS[i], '-1', '-1', 'WITHSCORES')[2]
    end
    reset_after = math.max(newest + window - t, 0)
    if not peek and (granted or redis.call('PTTL', KEYS[i]) == -1) then
      redis.call('PEXPIRE', KEYS[i], int(math.max(math.ceil(reset_after / 1000), 1)))
    end
  end
  local retry_after = 0
  if not admits then
    -- the call fits once the (count + permits - limit) oldest entries have left the window
    local blocking = redis.call('ZRANGEBYSCORE', KEYS[i], int(t - window + 1), '+inf', 'WITHSCORES', 'LIMIT',
      int(count + permits - limit - 1), '1')
    retry_after = blocking[2] + window - t
  end
  -- a limit lowered since the key filled can leave count above it
  local remaining = math.max(limit - count, 0)
  reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = admits and 1 or 0, remaining, retry_after,
    reset_after
end
return reply
