-- Generic cell rate algorithm: one stored time per key, the theoretical arrival time (TAT) of the
-- next permit; each permit moves it one emission interval T = window_us / limit later, and a call is
-- granted while the TAT stays within burst intervals of now. Times relative to now are counted in
-- units of 1/limit µs, so that T is the integer window_us and nothing is rounded. Several limits (one
-- key each) are checked together and charged all or nothing.
--
-- KEYS[i]        limit i's string: "<tat µs>:<remainder in 1/limit µs>"
-- ARGV[1]        now in µs since the epoch, or "" to read the Redis server's TIME (see prelude.lua)
-- ARGV[2]        permits this call takes (1..burst of every limit); negative to only read
--                what a call for that many would be told, writing nothing
-- ARGV[3i..3i+2] limit i: limit (permits per window), window_us (>= 1000), burst (>= 1)
--
-- Returns, per limit i, four integers: admits (1|0: limit i alone would grant the call), remaining,
-- retry_after_us (0 when it admits: exactly when the call would be granted), reset_after_us (until
-- the TAT is now, the key back to full). The call is granted, and every limit charged, only if every
-- limit admits it. Every key written expires when its TAT has passed.

-- now, permits, peek and int() come from prelude.lua

local ahead, granted = {}, true
for i = 1, #KEYS do
  local limit, window, burst = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  local value = redis.pcall('GET', KEYS[i])
  if type(value) == 'table' and value.err then
    if not peek then
      redis.call('DEL', KEYS[i])
    end
    value = false
  end
  -- how far the TAT lies ahead of now, in 1/limit µs (never behind: a late TAT restarts at now)
  local diff = 0
  if value then
    local tat, remainder = string.match(value, '^(%d+):(%d+)$')
    if tat then
      diff = math.max((tonumber(tat) - now) * limit + tonumber(remainder), 0)
    end
  end
  ahead[i] = diff
  if diff + permits * window > burst * window then
    granted = false
  end
end

local reply = {}
for i = 1, #KEYS do
  local limit, window, burst = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  local diff = ahead[i]
  local admits = diff + permits * window <= burst * window
  local retry_after = admits and 0 or math.ceil((diff + permits * window - burst * window) / limit)
  if granted and not peek then
    diff = diff + permits * window
    local tat = now + math.floor(diff / limit)
    redis.call('SET', KEYS[i], string.format('%.0f:%.0f', tat, diff % limit), 'PX',
      math.max(math.ceil(math.ceil(diff / limit) / 1000), 1))
  elseif not peek and redis.call('PTTL', KEYS[i]) == -1 then
    -- a key without a TTL is repaired, or dropped when its TAT has passed
    if diff > 0 then
      redis.call('PEXPIRE', KEYS[i], math.max(math.ceil(math.ceil(diff / limit) / 1000), 1))
    else
      redis.call('DEL', KEYS[i])
    end
  end
  reply[4 * i - 3] = admits and 1 or 0
  reply[4 * i - 2] = math.max(math.floor((burst * window - diff) / window), 0)
  reply[4 * i - 1] = retry_after
  reply[4 * i] = math.ceil(diff / limit)
end
return reply
