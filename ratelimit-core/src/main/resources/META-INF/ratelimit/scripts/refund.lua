-- Refund: gives back permits that a granted call took, for work charged before it ran and found, once it
-- ended, not to count (a rule that counts only failed responses). Each algorithm's state moves back as if
-- the call had taken fewer permits, never past a full budget; a key that is gone (expired, reset) is left
-- alone, and nothing is created.
--
-- KEYS[i]        the caller's key under limit i, as the algorithm's script takes it
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits to give back (>= 1)
-- ARGV[3i..3i+2] limit i: limit, window_us and burst, as the algorithm's script takes them
-- ARGV[#ARGV]    the algorithm: fixed-window, sliding-window-log, sliding-window-counter, token-bucket or gcra
--
-- Returns {number of keys that gave permits back}.
--
-- Per algorithm: the fixed window and the sliding window counter count the permits down in the window
-- the key holds (at least 0); the sliding log removes its newest entries; the token bucket puts tokens
-- back (at most its capacity, the key deleted when full), paying first a debt charge.lua left; GCRA moves its TAT
-- back (at most to now, the key deleted then). A refund that comes after its window ended is given to the window the
-- key holds.

-- permits, now, clock() and int() come from prelude.lua

local algorithm = ARGV[#ARGV]
local refunded = 0
for i = 1, #KEYS do
  local key = KEYS[i]
  local limit, window = ARGV[3 * i] + 0, ARGV[3 * i + 1] + 0
  if algorithm == 'fixed-window' or algorithm == 'sliding-window-counter' then
    local field = (algorithm == 'fixed-window') and 'n' or 'c'
    local count = redis.pcall('HGET', key, field)
    if type(count) == 'string' and count + 0 > 0 then
      -- HINCRBY keeps the key's TTL, its window's clock
      if redis.call('HINCRBY', key, field, -permits) < 0 then
        redis.call('HSET', key, field, '0')
      end
      refunded = refunded + 1
    end
  elseif algorithm == 'sliding-window-log' then
    local popped = redis.pcall('ZPOPMAX', key, permits)
    if type(popped) == 'table' and not popped.err and #popped > 0 then
      refunded = refunded + 1
    end
  elseif algorithm == 'token-bucket' then
    local burst = (ARGV[3 * i + 2] == ARGV[3 * i]) and limit or ARGV[3 * i + 2] + 0
    local capacity = burst * window
    local value = redis.pcall('GET', key)
    local stored, refilled_at, counted_in
    if type(value) == 'string' then
      stored, refilled_at, counted_in = string.match(value, '^(%d+):(%d+):(%d+)$')
    end
    if stored then
      if counted_in ~= ARGV[3 * i + 1] then
        stored = math.floor(stored * window / counted_in)
      end
      local t = clock()
      local available, stamp = stored + 0, t
      local elapsed = t - refilled_at
      local give = permits * window
      if elapsed < 0 then
        -- a last refill ahead: a debt (charge.lua), paid first, the rest given as tokens
        local debt = -elapsed * limit
        if give <= debt then
          stamp, give = refilled_at - math.floor(give / limit), 0
        else
          give = give - debt
        end
      elseif elapsed < math.ceil((capacity - stored) / limit) then
        available = math.min(stored + elapsed * limit, capacity)
      else
        available = capacity
      end
      available = math.min(available + give, capacity)
      if available >= capacity and stamp <= t then
        redis.call('DEL', key)
      else
        redis.call('SET', key, string.format('%d:%d:%d', available, stamp, window), 'PX',
          int(math.max(math.ceil((math.ceil((capacity - available) / limit) + math.max(stamp - t, 0)) / 1000), 1)))
      end
      refunded = refunded + 1
    end
  elseif algorithm == 'gcra' then
    local value = redis.pcall('GET', key)
    local tat, remainder
    if type(value) == 'string' then
      tat, remainder = string.match(value, '^(%d+):(%d+)$')
    end
    if tat then
      -- the TAT moves back permits * window_us / limit µs: counted from its µs ahead of now and its remainder, so
      -- that no product leaves 2^53 (a TAT far ahead, charge.lua)
      local units = remainder - permits * window
      local ahead = tat - clock() + math.floor(units / limit)
      remainder = units % limit
      if ahead < 0 or (ahead == 0 and remainder == 0) then
        redis.call('DEL', key)
      else
        redis.call('SET', key, string.format('%d:%d', clock() + ahead, remainder), 'PX',
          int(math.max(math.ceil((ahead + ((remainder > 0) and 1 or 0)) / 1000), 1)))
      end
      refunded = refunded + 1
    end
  end
end
return {refunded}
