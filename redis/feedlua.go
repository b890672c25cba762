package redis

// luaFeedLib holds the Lua helpers shared by the feed scripts. Lists are
// sorted sets of members with score 0 (see feedcodec.go); a list's meta hash
// holds its floor as a padded id.
//
//   - above(a, b) reports whether padded id a is greater than padded id b,
//     comparing them as two exact halves (a double holds 10 digits exactly,
//     and Lua's string comparison depends on the server's locale).
//   - trim(meta, list, cap) pops the oldest members beyond cap (ZPOPMIN: with
//     equal scores, the smallest members, i.e. the oldest ids) and sets the
//     floor to the newest one popped.
//   - zaddAll(list, members, from) adds members[from..] with score 0, at
//     most 1000 per ZADD (unpack has a stack limit).
const luaFeedLib = `
local function above(a, b)
	local ah, bh = tonumber(string.sub(a, 1, 10)), tonumber(string.sub(b, 1, 10))
	if ah ~= bh then return ah > bh end
	return tonumber(string.sub(a, 11)) > tonumber(string.sub(b, 11))
end
local function trim(meta, list, cap)
	local n = redis.call('ZCARD', list) - cap
	if n > 0 then
		local dropped = redis.call('ZPOPMIN', list, n)
		redis.call('HSET', meta, 'floor', string.sub(dropped[#dropped - 1], 1, 19))
	end
end
local function zaddAll(list, members, from)
	local batch = {}
	for i = from, #members do
		batch[#batch + 1] = 0
		batch[#batch + 1] = members[i]
		if #batch >= 2000 then
			redis.call('ZADD', list, unpack(batch))
			batch = {}
		end
	end
	if #batch > 0 then
		redis.call('ZADD', list, unpack(batch))
	end
end
`

// luaAdd is a block that adds one item to one list if the list exists (its
// meta hash does) and the item is above its floor, then trims. The script
// around it sets the Lua locals meta, list, member, id (padded) and cap;
// afterwards the local floor is false if the list does not exist.
const luaAdd = `
	local floor = redis.call('HGET', meta, 'floor')
	if floor and above(id, floor) and redis.call('ZADD', list, 0, member) == 1 then
		trim(meta, list, cap)
	end
`
