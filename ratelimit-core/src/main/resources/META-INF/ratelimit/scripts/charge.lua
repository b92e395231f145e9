-- Charge: takes permits whatever the budget holds, for work settled after it ran (a reservation whose actual cost
-- is more than its estimate): the work is done, so its cost is counted even past the limit, and the key is refused
-- until the budget has recovered. The counterpart of refund.lua, with the same keys and arguments.
--
-- KEYS[i]        the caller's key under limit i, as the algorithm's script takes it
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits to take (1..MAX_COST; the sliding log's caller sends more than 200 in several calls)
-- ARGV[3i..3i+2] limit i: limit, window_us and burst, as the algorithm's script takes them
-- ARGV[#ARGV]    the algorithm: fixed-window, sliding-window-log, sliding-window-counter, token-bucket or gcra
--
-- Returns {number of keys charged}.
--
-- Per algorithm: the fixed window and the sliding window counter count the permits in the window of now (opening
-- it when the key holds none); the sliding log adds one entry per permit at now; the token bucket takes the tokens,
-- and what it lacks becomes a debt (its last refill moved ahead: no token comes back before the debt is paid);
-- GCRA moves its TAT later by the permits' emission intervals. Every key written gets a TTL that covers its debt.
--
-- Bounded work and exact arithmetic, whatever the permits (up to MAX_COST = 2^53 - 1, RateLimiter.MAX_COST, the
-- largest integer a Lua number holds exactly; Java refuses more):
-- - the fixed window and the sliding window counter: O(1); a count is kept at most MAX_COST (a key that holds
--   that many is refused until its window has passed, as with more);
-- - the sliding log: at most limit entries (MAX_SLIDING_WINDOW_LOG_LIMIT = 10,000) written, in ZADDs of at most
--   ADD_CHUNK members, and the key then trimmed to its newest limit entries. The refusals that follow are those
--   of the full charge: a call is refused while limit entries lie within the window, and the newest limit entries
--   are the ones that leave it last. (A refund pops the entries the key holds, not the ones it dropped.)
-- - the token bucket and GCRA: O(1); permits are counted as whole windows (limit permits each) and the rest, so
--   that no product leaves 2^53. A debt (a last refill, or a TAT, ahead of now) is capped at MAX_AHEAD_US, the
--   longest window (36,500 days): a charge that would take longer to pay is refused for that long, the key's TTL.

-- permits, now, clock() and int() come from prelude.lua

local MAX_COST = 9007199254740991
local MAX_AHEAD_US = 3153600000000000
local ADD_CHUNK = 1000

local algorithm = ARGV[#ARGV]
local t = clock()
for i = 1, #KEYS do
  local key = KEYS[i]
  local limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  if algorithm == 'fixed-window' then
    local state = redis.pcall('HMGET', key, 'n', 'e')
    local ttl = redis.call('PTTL', key)
    -- a window that is over on the caller's clock (its end e passed) is opened afresh, as fixed-window.lua does
    if not state.err and state[1] and ttl > 0 and not (now and state[2] and state[2] + 0 <= now) then
      -- HINCRBY keeps the key's TTL, its window's clock; both counts are at most MAX_COST: no int64 overflow
      if redis.call('HINCRBY', key, 'n', ARGV[2]) > MAX_COST then
        redis.call('HSET', key, 'n', int(MAX_COST))
      end
    else
      redis.call('DEL', key)
      if now then
        redis.call('HSET', key, 'n', ARGV[2], 'e', int(now + window))
      else
        redis.call('HSET', key, 'n', ARGV[2])
      end
      redis.call('PEXPIRE', key, int(math.ceil(window / 1000)))
    end
  elseif algorithm == 'sliding-window-counter' then
    local index = math.floor(t / window)
    local state = redis.pcall('HMGET', key, 'w', 'c', 'p', 'l')
    if state.err then
      redis.call('DEL', key)
      state = {false, false, false, false}
    end
    local stored = tonumber(state[1])
    if state[4] == ARGV[3 * i + 1] and stored and stored >= index then
      if redis.call('HINCRBY', key, 'c', ARGV[2]) > MAX_COST then
        redis.call('HSET', key, 'c', int(MAX_COST))
      end
    else
      local previous = (state[4] == ARGV[3 * i + 1] and stored == index - 1) and (tonumber(state[2]) or 0) or 0
      redis.call('HSET', key, 'w', int(index), 'c', ARGV[2], 'p', int(previous), 'l', ARGV[3 * i + 1])
      redis.call('PEXPIRE', key, int(math.ceil(((index + 2) * window - t) / 1000)))
    end
  elseif algorithm == 'sliding-window-log' then
    if redis.pcall('TYPE', key).ok ~= 'zset' and redis.pcall('TYPE', key).ok ~= 'none' then
      redis.call('DEL', key)
    end
    -- members must be unique: a member already there (same time and sequence number) is not added, and the
    -- sequence numbers jump past those in use until every entry is in
    local score, seq, left = int(t), redis.call('ZCARD', key), math.min(permits, limit)
    local prefix, members = score .. ':', {}
    while left > 0 do
      local n = math.min(left, ADD_CHUNK)
      for j = 1, n do
        -- (a sequence number is far below 10^14: Lua writes it without an exponent)
        members[2 * j - 1], members[2 * j] = score, prefix .. (seq + j)
      end
      for j = #members, 2 * n + 1, -1 do
        members[j] = nil
      end
      local added = redis.call('ZADD', key, 'NX', unpack(members))
      left, seq = left - added, seq + n
      if added < n then
        seq = seq + limit
      end
    end
    local excess = redis.call('ZCARD', key) - limit
    if excess > 0 then
      redis.call('ZREMRANGEBYRANK', key, 0, int(excess - 1))
    end
    redis.call('PEXPIRE', key, int(math.ceil(window / 1000)))
  elseif algorithm == 'token-bucket' then
    local burst = (ARGV[3 * i + 2] == ARGV[3 * i]) and limit or ARGV[3 * i + 2] + 0
    local capacity = burst * window
    local value = redis.pcall('GET', key)
    local stored, refilled_at, counted_in
    if type(value) == 'string' then
      stored, refilled_at, counted_in = string.match(value, '^(%d+):(%d+):(%d+)$')
    end
    local available, stamp = capacity, t
    if stored then
      if counted_in ~= ARGV[3 * i + 1] then
        stored = math.floor(stored * window / counted_in)
      end
      local elapsed = t - refilled_at
      if elapsed < 0 then
        available, stamp = stored + 0, refilled_at + 0
      elseif elapsed < math.ceil((capacity - stored) / limit) then
        available = math.min(stored + elapsed * limit, capacity)
      end
    end
    if permits <= burst and permits * window <= available then
      available = available - permits * window
    else
      -- a debt: no token comes back until it is paid, as if the last refill lay ahead by its time. permits are
      -- whole windows (limit tokens, refilled in window_us each) and the rest: the debt's time is
      -- whole * window_us + ceil((rest * window - available) / limit), every term below 2^53
      local whole = math.floor(permits / limit)
      local due = stamp - t + math.ceil(((permits - whole * limit) * window - available) / limit)
      if whole * window >= MAX_AHEAD_US - due then
        stamp = t + MAX_AHEAD_US
      else
        stamp = t + due + whole * window
      end
      available = 0
    end
    redis.call('SET', key, string.format('%d:%d:%d', available, stamp, window), 'PX',
      int(math.max(math.ceil((math.ceil((capacity - available) / limit) + stamp - t) / 1000), 1)))
  elseif algorithm == 'gcra' then
    local value = redis.pcall('GET', key)
    -- the TAT as µs ahead of now and a remainder in 1/limit µs (never behind: a late TAT restarts at now)
    local ahead, remainder = 0, 0
    if type(value) == 'string' then
      local tat, rest = string.match(value, '^(%d+):(%d+)$')
      if tat and tat - t >= 0 then
        ahead, remainder = tat - t, rest + 0
      end
    end
    -- permits * window_us / limit µs later, as whole windows (limit permits, window_us each) and the rest, so
    -- that no product leaves 2^53
    local whole = math.floor(permits / limit)
    local units = remainder + (permits - whole * limit) * window
    ahead, remainder = ahead + math.floor(units / limit), units % limit
    if whole * window >= MAX_AHEAD_US - ahead then
      ahead, remainder = MAX_AHEAD_US, 0
    else
      ahead = ahead + whole * window
    end
    redis.call('SET', key, string.format('%d:%d', t + ahead, remainder), 'PX',
      int(math.max(math.ceil((ahead + ((remainder > 0) and 1 or 0)) / 1000), 1)))
  end
end
return {#KEYS}
