/**
 * `botmesh/redis-store`: journals (`RedisDurability`) and the bot's store (`RedisStore`) in Redis,
 * Redis Cluster or Redis behind Sentinel, through ioredis (loaded only when a Redis backend starts).
 *
 *   const durability = new RedisDurability({ url: 'redis://127.0.0.1:6379', prefix: 'mybot' })
 *   const store = new RedisStore({ client, prefix: 'mybot' }); store.durability()
 *
 * @module botmesh/redis-store
 */
export { RedisDurability, type RedisDurabilityOptions } from './durability.js'
export { RedisStore, type RedisStoreOptions } from './store.js'
export { RedisKv, type RedisKvOptions } from './kv.js'
export { RedisConnection, type RedisClient, type RedisClusterConfig, type RedisConnectionOptions, type RedisLogger } from './connection.js'
export { SENTINEL_DEFAULT_PORT, type RedisSentinelAddress, type RedisSentinelConfig } from './sentinel.js'
export { RedisKeys, DEFAULT_PREFIX, type CollectionKeys } from './keys.js'
export type { FailureRole } from '../common/failure-role.js'
export { REDIS_LIMITS, type RedisTimeouts } from './limits.js'
export { redisOptionsFromUrl, redactRedisUrl } from './url.js'
export type { StoreTlsOptions } from '../common/tls.js'
