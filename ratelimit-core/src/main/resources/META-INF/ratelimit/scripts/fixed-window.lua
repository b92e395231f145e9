-- Fixed window: a key's window opens with its first permit and lasts window_us; up to limit permits
-- are granted in it. Several limits (one key each) are checked together and charged all or nothing.
--
-- KEYS[i]        limit i's hash: field n = permits taken in the window. A window opened on the server's
--                clock has no other field: it ends when the key expires, so the key's TTL is its clock
--                and no call needs TIME. A window opened on the caller's clock (an explicit now) also
--                has field e = its end in µs since the epoch (its start + window_us): a window ends when it
--                was to end when it opened on either clock, whatever window_us later calls pass (a calendar
--                quota passes the time left in its period), unless that is shorter than the time left by
--                more than 2 ms (opened under a longer window): then it is given window_us from now.
-- ARGV[1]        now in µs since the epoch, or "" for the Redis server's clock (see prelude.lua)
-- ARGV[2]        permits this call takes (1..limit of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (permits per window), window_us (>= 1000), burst (unused here)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining,
-- retry_after_us (0 when it admits), reset_after_us (until the key is back to full). The call is
-- granted, and every limit charged, only if every limit admits it; otherwise nothing is charged and
-- nothing is written. Every key written gets a TTL ending with its window; a key found without one, or
-- on the server's clock with one longer than its window (opened under a longer window), is repaired.
-- On the server's clock a window's end is known to the millisecond of its TTL: it lasts at least
-- window_us and less than 1 ms more, and retry_after_us is never early.
--
-- Commands on the server's clock: a granted call HMGET, PTTL, HINCRBY (HSET and PEXPIRE instead when
-- it opens the window); a refused call HMGET, PTTL.

-- permits, peek, now, clock(), int(), states and reply come from prelude.lua

-- The first loop reads every key, the second charges them if every limit admits the call. One limit's
-- state is kept in these locals from one loop to the next; with several, in states[i] (see prelude.lua).
-- kind: what the key holds: 'new' (nothing), 'stale' (a window that is over), 'caller' (a window with
-- field e), or the TTL in ms of a window on the server's clock (-1: its end is repaired). left: µs until the
-- window ends.
local granted = true
local limit, window, count, left, kind
for i = 1, #KEYS do
  limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  local state = redis.pcall('HMGET', KEYS[i], 'n', 'e')
  if state.err then
    -- a key of another type (the seed's plain counter, say) would fail every call: start afresh
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    state = {false, false}
  end
  local ends
  count, ends, left, kind = tonumber(state[1]), state[2] and tonumber(state[2]), false, false
  if count and ends then
    left, kind = ends - clock(), 'caller'
    if left >= window + 2000 then
      kind, left = -1, window
    end
  elseif count then
    -- it ends when the key expires, within the millisecond after its TTL. Without a TTL (left by hand),
    -- or with one longer than this window (it was opened under a longer one), its end is unknown: it is
    -- given a whole window from now, and its TTL set to match (kind -1)
    -- (written without math.ceil and math.min, which cost a call each: (kind + 1) * 1000 >= window + 2000
    -- is kind > ceil(window / 1000))
    kind = redis.call('PTTL', KEYS[i])
    left = (kind + 1) * 1000
    if kind < 0 or left >= window + 2000 then
      kind, left = -1, window
    elseif left > window then
      left = window
    end
  end
  if not left or left <= 0 then
    count, left, kind = 0, window, count and 'stale' or 'new'
  end
  if count + permits > limit then
    granted = false
  end
  if states then
    states[i] = {limit, window, count, left, kind}
  end
end

for i = 1, #KEYS do
  if states then
    limit, window, count, left, kind = unpack(states[i])
  end
  local admits = count + permits <= limit
  if peek then
    -- nothing is written
  elseif granted and (kind == 'new' or kind == 'stale') then
    if now then
      redis.call('HSET', KEYS[i], 'n', ARGV[2], 'e', int(now + window))
    else
      if kind == 'stale' then
        -- the end of a window opened on a caller's clock must not outlive it
        redis.call('DEL', KEYS[i])
      end
      redis.call('HSET', KEYS[i], 'n', ARGV[2])
    end
    redis.call('PEXPIRE', KEYS[i], int(math.ceil(window / 1000)))
  elseif granted then
    redis.call('HINCRBY', KEYS[i], 'n', ARGV[2])
    if now and kind ~= 'caller' then
      -- the caller's clock takes over a window opened on the server's (or repairs one): it keeps that end
      redis.call('HSET', KEYS[i], 'e', int(now + left))
    end
    if kind == 'caller' or now or kind == -1 then
      redis.call('PEXPIRE', KEYS[i], int(math.ceil(left / 1000)))
    end
  elseif kind == -1 or (kind == 'caller' and redis.call('PTTL', KEYS[i]) == -1) then
    -- a key without a TTL (left by hand, or by older code), or with one past its window, is repaired
    redis.call('PEXPIRE', KEYS[i], int(math.ceil(left / 1000)))
  elseif kind == 'stale' and redis.call('PTTL', KEYS[i]) == -1 then
    redis.call('DEL', KEYS[i])
  end
  if granted and not peek then
    count = count + permits
  end
  -- a limit lowered since the key filled can leave count above it
  local remaining = (count < limit) and limit - count or 0
  local retry_after, reset_after = admits and 0 or left, (count > 0) and left or 0
  reply[4 * i - 3], reply[4 * i - 2], reply[4 * i - 1], reply[4 * i] = admits and 1 or 0, remaining, retry_after,
    reset_after
end
return reply
