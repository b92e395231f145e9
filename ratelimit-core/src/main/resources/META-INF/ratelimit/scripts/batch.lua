-- Batch: the calls of several callers, each to one of the limiter's scripts, carried by one EVALSHA and
-- each decided on its own, exactly as if it had been sent alone: its own keys and arguments, its own
-- all-or-nothing, its own reply; one call's error is its reply alone. The runner loads this file after
-- every script it may batch as a function of its own KEYS and ARGV, script[1..m] (see RedisScripts).
-- On a Redis Cluster one batch holds calls of one hash slot only.
--
-- ARGV[1]           n, the number of calls
-- ARGV[2..1+3n]     per call c: its script's index, its number of keys k_c, and the number of its
--                   argument list (1..m)
-- ARGV[2+3n]        m, the number of distinct argument lists: calls that send the same arguments (one
--                   rule on the server's clock) share one, which Redis parses once per batch
-- ARGV[3+3n..]      per list j: its length a_j, then its a_j arguments
-- KEYS              the calls' keys, k_1 for call 1, then k_2 for call 2, ...
--
-- Returns n replies, in order: call c's own reply (an array), or the message of the error it raised (a
-- string). A call that fails has written what it wrote before the error, as a script of its own would.
-- Calls of one list are handed the same ARGV table: the scripts only read their ARGV.

local n = tonumber(ARGV[1])
local lists, at = {}, 3 + 3 * n
for j = 1, tonumber(ARGV[2 + 3 * n]) do
  local a = tonumber(ARGV[at])
  lists[j] = {unpack(ARGV, at + 1, at + a)}
  at = at + 1 + a
end
local replies = {}
local next_key = 1
for c = 1, n do
  local base = 3 * c - 1
  local k = tonumber(ARGV[base + 1])
  local ok, reply = pcall(script[tonumber(ARGV[base])], {unpack(KEYS, next_key, next_key + k - 1)},
    lists[tonumber(ARGV[base + 2])])
  if not ok then
    -- redis.call raises a table {err = message}; Lua itself, a string
    reply = (type(reply) == 'table' and reply.err) or tostring(reply)
  end
  replies[c] = reply
  next_key = next_key + k
end
return replies
