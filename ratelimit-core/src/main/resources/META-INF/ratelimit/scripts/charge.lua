-- Charge: takes permits whatever the budget holds, for work settled after it ran (a reservation whose actual cost
-- is more than its estimate): the work is done, so its cost is counted even past the limit, and the key is refused
-- until the budget has recovered. The counterpart of refund.lua, with the same keys and arguments.
--
-- KEYS[i]        the caller's key under limit i, as the algorithm's script takes it
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits to take (>= 1)
-- ARGV[3i..3i+2] limit i: limit, window_us and burst, as the algorithm's script takes them
-- ARGV[#ARGV]    the algorithm: fixed-window, sliding-window-log, sliding-window-counter, token-bucket or gcra
--
-- Returns {number of keys charged}.
--
-- Per algorithm: the fixed window and the sliding window counter count the permits in the window of now (opening
-- it when the key holds none); the sliding log adds one entry per permit at now; the token bucket takes the tokens,
-- and what it lacks becomes a debt (its last refill moved ahead: no token comes back before the debt is paid);
-- GCRA moves its TAT later by the permits' emission intervals. Every key written gets a TTL that covers its debt.

-- permits, now, clock() and int() come from prelude.lua

local algorithm = ARGV[#ARGV]
local t = clock()
for i = 1, #KEYS do
  local key = KEYS[i]
  local limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  if algorithm == 'fixed-window' then
    local count = redis.pcall('HGET', key, 'n')
    local ttl = redis.call('PTTL', key)
    if type(count) == 'string' and ttl > 0 then
      -- HINCRBY keeps the key's TTL, its window's clock
      redis.call('HINCRBY', key, 'n', ARGV[2])
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
      redis.call('HINCRBY', key, 'c', ARGV[2])
    else
      local previous = (state[4] == ARGV[3 * i + 1] and stored == index - 1) and (tonumber(state[2]) or 0) or 0
      redis.call('HSET', key, 'w', int(index), 'c', ARGV[2], 'p', int(previous), 'l', ARGV[3 * i + 1])
      redis.call('PEXPIRE', key, int(math.ceil(((index + 2) * window - t) / 1000)))
    end
  elseif algorithm == 'sliding-window-log' then
    if redis.pcall('TYPE', key).ok ~= 'zset' and redis.pcall('TYPE', key).ok ~= 'none' then
      redis.call('DEL', key)
    end
    local score, seq = int(t), redis.call('ZCARD', key)
    for _ = 1, permits do
      seq = seq + 1
      while redis.call('ZADD', key, 'NX', score, score .. ':' .. int(seq)) == 0 do
        seq = seq + limit
      end
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
    available = available - permits * window
    if available < 0 then
      -- a debt: no token comes back until it is paid, as if the last refill lay ahead by its time
      stamp = stamp + math.ceil(-available / limit)
      available = 0
    end
    redis.call('SET', key, string.format('%d:%d:%d', available, stamp, window), 'PX',
      int(math.max(math.ceil((math.ceil((capacity - available) / limit) + stamp - t) / 1000), 1)))
  elseif algorithm == 'gcra' then
    local value = redis.pcall('GET', key)
    local diff = 0
    if type(value) == 'string' then
      local tat, remainder = string.match(value, '^(%d+):(%d+)$')
      if tat then
        diff = math.max((tat - t) * limit + remainder, 0)
      end
    end
    diff = diff + permits * window
    redis.call('SET', key, string.format('%d:%d', t + math.floor(diff / limit), diff % limit), 'PX',
      int(math.max(math.ceil(math.ceil(diff / limit) / 1000), 1)))
  end
end
return {#KEYS}
