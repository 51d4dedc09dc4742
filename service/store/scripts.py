"""Lua scripts of the event store.

Each script makes every check before its first write, so a refused call writes nothing
(Redis does not roll a script back when it fails half way). Scripts answer with a status
table, e.g. {'ok', first, last} or {'conflict', actual}, which the Python side turns into
results and named errors; they only raise for bugs.

They use commands that exist in Redis 6.2 and 7.x and are plain EVAL scripts (no
FUNCTION LOAD, no shebang flags), so both versions run them.

Cluster note: every key passed to a script shares the encounter's hash tag, except
``fray:deadlines``, the global deadline index, which APPEND, CLEAR_DEADLINE, MOVE_DEADLINE
and ADD_DEADLINE keep in step when they are handed its key (a standalone Redis). Redis
Cluster refuses a script whose keys span slots, so there the key is left out: the script
counts the change in the outbox's generation instead (field ``OUTBOX_GEN`` of outbox-data),
and the store writes the index after it from OUTBOX_HEAD through SYNC_INDEX, which keeps
only the latest generation (`service.store.redis_store`, "Redis Cluster"). The tenant index
of encounters (`service.store.redis_index`) is written that way on both: by its own
commands, before a create and after an append, never from a script of the encounter's.

Retention: a script that writes an encounter left ended or archived sets every key of it to
expire after the retention period (ARGV, milliseconds; 0 keeps it for ever), so the period
runs from its last write. Every key of the encounter is passed to such a script, those that
do not exist yet included (PEXPIRE of a missing key does nothing).
"""

from __future__ import annotations

from service.store.checks import RESERVED_DEADLINE_KEY

# A field of outbox-data no deadline key may take.
OUTBOX_GEN = RESERVED_DEADLINE_KEY

# Keeps the global index pointing at the encounter's earliest pending deadline; without the
# index's key (a cluster), counts the outbox's change for the caller to sync it.
_SYNC_INDEX = """
local function sync_index(outbox, outbox_data, index, encounter)
  if not index then
    redis.call('HINCRBY', outbox_data, '\\0gen', 1)
    return
  end
  local first = redis.call('ZRANGE', outbox, 0, 0, 'WITHSCORES')
  if first[1] then
    redis.call('ZADD', index, first[2], encounter)
  else
    redis.call('ZREM', index, encounter)
  end
end
"""

# Every key of the encounter expires `ms` milliseconds from now if it is ended or archived.
# `keys` lists them all, meta first.
_RETAIN = """
local function retain(keys, ms)
  if ms <= 0 then
    return
  end
  local status = redis.call('HGET', keys[1], 'status')
  if status == 'ended' or status == 'archived' then
    for _, key in ipairs(keys) do
      redis.call('PEXPIRE', key, ms)
    end
  end
end
"""

# KEYS: meta, events, seed
# ARGV: hash, body, seed, now (created and updated), now in ms (indexed), then meta
#       field/value pairs
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  return {'exists'}
end
redis.call('XADD', KEYS[2], '1-0', 'e', ARGV[2], 'h', ARGV[1])
redis.call('SET', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[1], 'version', '1', 'hash', ARGV[1], 'created', ARGV[4],
           'updated', ARGV[4], 'status', 'active', 'indexed', ARGV[5])
for i = 6, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return {'ok'}
"""

# KEYS: meta, events, cmds, outbox, outbox-data, snap, seed, audit, and fray:deadlines but
#       on a cluster
# ARGV: expected version, command id, fingerprint, encounter id,
#       status ('' leaves it), now (updated), now in ms, index lag (ms), retention (ms),
#       event count, (hash, body) per event,
#       deadline count, (key, due, payload) per deadline,
#       cancel count, key per cancelled deadline
APPEND = (
    _SYNC_INDEX
    + _RETAIN
    + """
local meta, events, cmds = KEYS[1], KEYS[2], KEYS[3]
local outbox, outbox_data, index = KEYS[4], KEYS[5], KEYS[9]
local expected = tonumber(ARGV[1])
local command_id, fingerprint, encounter = ARGV[2], ARGV[3], ARGV[4]
local status, now, now_ms = ARGV[5], ARGV[6], tonumber(ARGV[7])
local lag, retention = tonumber(ARGV[8]), tonumber(ARGV[9])

-- A retry of a recorded command gets its first outcome, whatever version it expected.
local record = redis.call('HGET', cmds, command_id)
if record then
  local a = string.find(record, ':', 1, true)
  local b = string.find(record, ':', a + 1, true)
  if string.sub(record, b + 1) ~= fingerprint then
    return {'reused'}
  end
  return {'duplicate', tonumber(string.sub(record, 1, a - 1)),
          tonumber(string.sub(record, a + 1, b - 1))}
end

local version = redis.call('HGET', meta, 'version')
if not version then
  return {'missing'}
end
if redis.call('HGET', meta, 'status') == 'archived' then
  return {'archived'}
end
version = tonumber(version)
if version ~= expected then
  return {'conflict', version}
end

-- XADD would fail half way through if the stream ran ahead of meta; refuse up front.
local top = redis.call('XREVRANGE', events, '+', '-', 'COUNT', 1)
local top_version = 0
if top[1] then
  top_version = tonumber(string.match(top[1][1], '^(%d+)-'))
end
if top_version ~= version then
  return {'corrupt', version, top_version}
end

local n = tonumber(ARGV[10])
local i = 11
local last_hash = nil
for k = 1, n do
  redis.call('XADD', events, string.format('%d-0', expected + k), 'e', ARGV[i + 1], 'h', ARGV[i])
  last_hash = ARGV[i]
  i = i + 2
end
local first, last = expected + 1, expected + n
if n > 0 and not index then
  -- A cluster: the live feed's announcement (`service.store.cluster_hub`).
  redis.call('SPUBLISH', 'fray:{' .. encounter .. '}:live', string.format('%d', last))
end
-- Whether the caller should write the tenant index: on a change of status, else at most
-- once per `lag` ms (`service.store.redis_index`).
local reindex = 0
if n > 0 then
  local before = redis.call('HGET', meta, 'status')
  redis.call('HSET', meta, 'version', string.format('%d', last), 'hash', last_hash,
             'updated', now)
  if status ~= '' then
    redis.call('HSET', meta, 'status', status)
  end
  local indexed = tonumber(redis.call('HGET', meta, 'indexed') or '0')
  if (status ~= '' and status ~= before) or now_ms - indexed >= lag then
    redis.call('HSET', meta, 'indexed', ARGV[7])
    reindex = 1
  end
end
redis.call('HSET', cmds, command_id, string.format('%d:%d:', first, last) .. fingerprint)

local deadlines = tonumber(ARGV[i])
i = i + 1
for k = 1, deadlines do
  redis.call('ZADD', outbox, ARGV[i + 1], ARGV[i])
  redis.call('HSET', outbox_data, ARGV[i], ARGV[i + 2])
  i = i + 3
end
local cancels = tonumber(ARGV[i])
i = i + 1
for k = 1, cancels do
  redis.call('ZREM', outbox, ARGV[i])
  redis.call('HDEL', outbox_data, ARGV[i])
  i = i + 1
end
if deadlines + cancels > 0 then
  sync_index(outbox, outbox_data, index, encounter)
end
retain({meta, events, cmds, outbox, outbox_data, KEYS[6], KEYS[7], KEYS[8]}, retention)
return {'ok', first, last, reindex}
"""
)

# KEYS: outbox, outbox-data, and fray:deadlines but on a cluster
# ARGV: deadline key, due time it must still have, encounter id, and optionally the payload
#       it must still have (a deadline armed again for the same time has another payload)
CLEAR_DEADLINE = (
    _SYNC_INDEX
    + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then
  return 0
end
if ARGV[4] and redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[4] then
  return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
sync_index(KEYS[1], KEYS[2], KEYS[3], ARGV[3])
return 1
"""
)

# KEYS: outbox, outbox-data
# ARGV: highest due time ('+inf' for all), how many (-1 for all)
# Returns key, due, payload triples, earliest first.
OUTBOX_RANGE = """
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES',
                         'LIMIT', 0, ARGV[2])
local out = {}
for i = 1, #items, 2 do
  local payload = redis.call('HGET', KEYS[2], items[i])
  out[#out + 1] = items[i]
  out[#out + 1] = items[i + 1]
  out[#out + 1] = payload or ''
end
return out
"""

# KEYS: the record's key (a snapshot, an audit verdict), then the encounter's keys: meta,
#       events, cmds, outbox, outbox-data, snap, seed, audit
# ARGV: version, payload, '1' if a record of the same version is replaced ('0' if kept),
#       retention (ms)
# A record of a later version is never replaced: a snapshot folded, or an audit that read
# less, finishing last. The value is "<version>:<payload>".
SAVE_AT_VERSION = (
    _RETAIN
    + """
local head = redis.call('HGET', KEYS[2], 'version')
if not head then
  return {'missing'}
end
local version = tonumber(ARGV[1])
if version > tonumber(head) then
  return {'ahead', tonumber(head)}
end
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, ':', 1, true)
  local kept = tonumber(string.sub(current, 1, sep - 1))
  if kept > version or (kept == version and ARGV[3] ~= '1') then
    return {'stale'}
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2])
retain({KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]},
       tonumber(ARGV[4]))
return {'ok'}
"""
)

# KEYS: meta, events, cmds, outbox, outbox-data, snap, seed, audit
# ARGV: now (updated), now in ms (indexed), retention (ms)
# Returns {'missing'} or {'ok', changed (0 or 1), meta field, value, ...}. Archiving again
# changes nothing: not `updated`, not the expiry.
ARCHIVE = (
    _RETAIN
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {'missing'}
end
local changed = 0
if redis.call('HGET', KEYS[1], 'status') ~= 'archived' then
  redis.call('HSET', KEYS[1], 'status', 'archived', 'updated', ARGV[1], 'indexed', ARGV[2])
  retain(KEYS, tonumber(ARGV[3]))
  changed = 1
end
local reply = {'ok', changed}
for _, item in ipairs(redis.call('HGETALL', KEYS[1])) do
  reply[#reply + 1] = item
end
return reply
"""
)

# KEYS: meta
# ARGV: field/value pairs
# Sets each field the meta lacks; nothing for an encounter that is gone (HSETNX would make
# a meta of its own). Returns the fields set, or {'missing'}.
FILL_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {'missing'}
end
local set = {'ok'}
for i = 1, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    set[#set + 1] = ARGV[i]
  end
end
return set
"""

# KEYS: a tenant's index
# ARGV: stored id, the score it was read with
# Drops an entry of an encounter found gone, unless it was written since it was read (the
# encounter created again meanwhile). Returns 1 if dropped.
DROP_GONE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
"""

# KEYS: outbox, outbox-data, and fray:deadlines but on a cluster
# ARGV: key, due, encounter id, payload, new due, new payload
# Moves a pending entry still at `due` with `payload` (a webhook delivery to retry later).
MOVE_DEADLINE = (
    _SYNC_INDEX
    + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then
  return 0
end
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[4] then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[6])
sync_index(KEYS[1], KEYS[2], KEYS[3], ARGV[3])
return 1
"""
)

# KEYS: meta, outbox, outbox-data, and fray:deadlines but on a cluster
# ARGV: key, due, encounter id, payload
# Adds an entry outside an append (a webhook redelivery), unless the key is pending or the
# encounter is gone.
ADD_DEADLINE = (
    _SYNC_INDEX
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
sync_index(KEYS[2], KEYS[3], KEYS[4], ARGV[3])
return 1
"""
)

# KEYS: outbox, outbox-data
# Returns {generation, earliest due or false}, read together: what SYNC_INDEX writes.
OUTBOX_HEAD = """
local gen = tonumber(redis.call('HGET', KEYS[2], '\\0gen') or '0')
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[1] then
  return {gen, first[2]}
end
return {gen, false}
"""

# KEYS: fray:deadlines, {fray:deadlines}:gen (one slot: the tag is the index's whole name)
# ARGV: encounter id, outbox generation, earliest due ('' if none)
# On a cluster: the index entry of the encounter as of that generation of its outbox,
# unless a later one was written already (two syncs of one encounter may cross). Returns 1
# if written. Generation 0 with nothing pending is an outbox gone (expired with its
# encounter): its entry goes whatever generation wrote it.
SYNC_INDEX = """
local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
local gone = ARGV[2] == '0' and ARGV[3] == ''
if tonumber(ARGV[2]) <= seen and not gone then
  return 0
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
return 1
"""
