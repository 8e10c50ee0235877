import type { Redis } from 'ioredis';

/**
 * The Lua scripts of RedisStateStore. Every write is one script, so its epoch check and all its
 * writes are one atomic step; times come from the server's clock (TIME), so that expiry scores
 * agree with PEXPIRE whatever the coordinators' clocks say (Redis 7 replicates scripts by their
 * effects, so TIME is allowed before writes).
 *
 * Keys a script builds itself (a job's keys while listing) start from the prefix in ARGV: the
 * store is for one standalone Redis (with replicas), not Redis Cluster.
 */

/** The error reply of a fenced write from a stale epoch: `TWSTALE <current epoch>`. */
export const STALE_REPLY = /^TWSTALE (\d+)/;

const NOW = `local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * KEYS[1] is the epoch key, ARGV[1] the writer's epoch. A higher stored epoch refuses the write;
 * a lower one (the server lost its data) is raised to the writer's before anything is written,
 * so that the next claim hands out an epoch above every one the workers have seen.
 */
const FENCE = `local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local writer = tonumber(ARGV[1])
if current > writer then return redis.error_reply('TWSTALE ' .. string.format('%d', current)) end
if current < writer then redis.call('SET', KEYS[1], ARGV[1]) end
`;

/** ARGV[1] is the prefix: {info, state, checkpoints} of each listed id whose job key still exists. */
const COLLECT = `local function collect(ids)
  local out = {}
  for _, id in ipairs(ids) do
    local base = ARGV[1] .. 'job:' .. id
    local h = redis.call('HMGET', base, 'info', 'state')
    if h[1] then out[#out + 1] = {h[1], h[2], redis.call('HGETALL', base .. ':checkpoints')} end
  end
  return out
end
`;

/** name -> [number of keys, body]. */
const SCRIPTS = {
  /** KEYS epoch, leader; ARGV address, at least. Returns the new epoch. */
  twClaimEpoch: [
    2,
    `${NOW}local epoch = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[2])
if epoch <= floor then
  epoch = floor + 1
  redis.call('SET', KEYS[1], string.format('%d', epoch))
end
redis.call('SET', KEYS[2], cjson.encode({address = ARGV[1], epoch = epoch, sinceMs = now_ms()}))
return epoch`,
  ],
  /** KEYS epoch; ARGV epoch. */
  twFence: [1, `${FENCE}return 1`],
  /** KEYS epoch, job, checkpoints, active, ended; ARGV epoch, id, info, state. {'OK'} or {'ACTIVE', state}. */
  twSubmitJob: [
    5,
    `${FENCE}if redis.call('SISMEMBER', KEYS[4], ARGV[2]) == 1 then
  return {'ACTIVE', redis.call('HGET', KEYS[2], 'state') or ''}
end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[5], ARGV[2])
redis.call('HSET', KEYS[2], 'info', ARGV[3], 'state', ARGV[4])
redis.call('SADD', KEYS[4], ARGV[2])
return {'OK'}`,
  ],
  /** KEYS epoch, job, active; ARGV epoch, id, state. 1 when written, 0 when the job is not active. */
  twUpdateJob: [
    3,
    `${FENCE}if redis.call('SISMEMBER', KEYS[3], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'state', ARGV[3])
return 1`,
  ],
  /**
   * KEYS epoch, job, checkpoints; ARGV epoch, pipeline id, pointer. An ended job keeps its
   * expiry: the pointer hash expires with the job.
   */
  twPutCheckpoint: [
    3,
    `${FENCE}if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
return 1`,
  ],
  /** KEYS epoch, job, checkpoints, active, ended; ARGV epoch, id, state, expire ms. */
  twEndJob: [
    5,
    `${NOW}${FENCE}if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local expire = tonumber(ARGV[4])
redis.call('HSET', KEYS[2], 'state', ARGV[3])
redis.call('SREM', KEYS[4], ARGV[2])
redis.call('ZADD', KEYS[5], string.format('%d', now_ms() + expire), ARGV[2])
redis.call('PEXPIRE', KEYS[2], expire)
redis.call('PEXPIRE', KEYS[3], expire)
return 1`,
  ],
  /** KEYS job, checkpoints. {info, state, {field, value, ...}} or nil. */
  twJob: [
    2,
    `local h = redis.call('HMGET', KEYS[1], 'info', 'state')
if not h[1] then return false end
return {h[1], h[2], redis.call('HGETALL', KEYS[2])}`,
  ],
  /** KEYS active; ARGV prefix. A list of {info, state, checkpoints}. */
  twActiveJobs: [1, `${COLLECT}return collect(redis.call('SMEMBERS', KEYS[1]))`],
  /**
   * KEYS ended; ARGV prefix, offset, count (-1: all). Prunes expired members, then lists the
   * rest by expiry time, latest first (with one retention for all, the most recently ended first).
   */
  twEndedJobs: [
    1,
    `${NOW}${COLLECT}local now = string.format('%d', now_ms())
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return collect(redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. now, 'LIMIT', ARGV[2], ARGV[3]))`,
  ],
  /** KEYS coordinators, coordinators:ttl; ARGV address, ttl ms. Forgets those silent past their ttl. */
  twAnnounce: [
    2,
    `${NOW}local now = now_ms()
redis.call('ZADD', KEYS[1], string.format('%d', now), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  local ttl = tonumber(redis.call('HGET', KEYS[2], all[i]) or '0')
  if tonumber(all[i + 1]) + ttl < now then
    redis.call('ZREM', KEYS[1], all[i])
    redis.call('HDEL', KEYS[2], all[i])
  end
end
return 1`,
  ],
  /** KEYS coordinators, coordinators:ttl. {address, last seen, ...} of those heard within their ttl. */
  twCoordinators: [
    2,
    `${NOW}local now = now_ms()
local out = {}
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  local ttl = tonumber(redis.call('HGET', KEYS[2], all[i]) or '0')
  if now - tonumber(all[i + 1]) <= ttl then
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
return out`,
  ],
} as const satisfies Record<string, readonly [number, string]>;

export type ScriptName = keyof typeof SCRIPTS;

/** Calls a defined script: keys first, then arguments (ioredis sends EVALSHA, EVAL after NOSCRIPT). */
export type ScriptCall = (name: ScriptName, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

/**
 * Defines the scripts on `client` (ioredis loads each by its SHA and falls back to EVAL when the
 * server lost its script cache, e.g. after a restart) and returns the way to call them.
 */
export function defineStateScripts(client: Redis): ScriptCall {
  for (const [name, [numberOfKeys, lua]] of Object.entries(SCRIPTS)) client.defineCommand(name, { numberOfKeys, lua });
  const commands = client as unknown as Record<ScriptName, (...a: (string | number)[]) => Promise<unknown>>;
  return (name, keys, args) => commands[name].call(client, ...keys, ...args);
}
