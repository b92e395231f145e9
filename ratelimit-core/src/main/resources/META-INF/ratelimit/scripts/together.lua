-- Together: several calls, each to one algorithm's script under its own keys, decided all or nothing in
-- one EVALSHA, so that when one call is refused no other is charged. The limiter loads it after one
-- function per algorithm, decide[1..5] (Algorithm's order), each the prelude and the algorithm's file
-- taking its own KEYS and ARGV.
--
-- ARGV[1]           n, the number of calls
-- ARGV[2..1+3n]     per call c: the algorithm's index (1-based), its number of keys k_c and of
--                   arguments a_c
-- ARGV[2+3n..]      the calls' arguments, a_1 for call 1, then a_2 for call 2, ... (as each script reads
--                   its ARGV: now, permits, then limit, window_us and burst per limit)
-- KEYS              the calls' keys, k_1 for call 1, then k_2 for call 2, ...
--
-- Returns {answered, then four integers per limit of each answered call, as each script returns them}.
-- Every call is first asked what it would be told, writing nothing; when every call would be granted,
-- each is then made for real, in order, and answered = n. Otherwise nothing is written, answered is
-- the index of the first call that would be refused, and the figures are those the calls up to it
-- were told (remaining before any charge).

local n = tonumber(ARGV[1])
local calls = {}
local next_key, next_arg = 1, 2 + 3 * n
for c = 1, n do
  local base = 3 * c - 1
  local k, a = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local keys, args = {}, {}
  for j = 1, k do
    keys[j] = KEYS[next_key + j - 1]
  end
  for j = 1, a do
    args[j] = ARGV[next_arg + j - 1]
  end
  next_key, next_arg = next_key + k, next_arg + a
  calls[c] = {decide[tonumber(ARGV[base])], keys, args}
end

local result = {0}
for c = 1, n do
  local run, keys, args = calls[c][1], calls[c][2], calls[c][3]
  local asked = {}
  for j = 1, #args do
    asked[j] = args[j]
  end
  asked[2] = '-' .. args[2]
  local reply = run(keys, asked)
  for j = 1, #reply do
    result[#result + 1] = reply[j]
  end
  result[1] = c
  for j = 1, #reply, 4 do
    if reply[j] ~= 1 then
      return result
    end
  end
end

result = {n}
for c = 1, n do
  local reply = calls[c][1](calls[c][2], calls[c][3])
  for j = 1, #reply do
    result[#result + 1] = reply[j]
  end
end
return result
