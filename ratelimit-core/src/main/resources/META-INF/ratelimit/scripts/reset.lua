-- Reset: deletes a caller's state under every limit, so that it is back to full at once.
--
-- KEYS[i]  the caller's key under limit i
--
-- Returns {number of keys deleted}.

return {redis.call('DEL', unpack(KEYS))}
