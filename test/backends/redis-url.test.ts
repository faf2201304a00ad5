import { describe, expect, it } from 'vitest'
import { redactRedisUrl, redisOptionsFromUrl } from '../../src/backends/redis/index.js'
import { takeTlsParams } from '../../src/backends/redis/tls.js'
import { ConfigError } from '../../src/core/errors/errors.js'
import { RedisDurability, RedisStore } from '../../src/backends/redis/index.js'

describe('Redis backend URLs', () => {
  it('reads a standalone URL and takes the prefix out of it', () => {
    expect(redisOptionsFromUrl('redis://:s3cret@10.0.0.5:6380/2?prefix=shop')).toEqual({
      url: 'redis://:s3cret@10.0.0.5:6380/2',
      prefix: 'shop',
    })
    expect(redisOptionsFromUrl('rediss://cache.example:6379')).toEqual({ url: 'rediss://cache.example:6379', prefix: 'botmesh' })
  })

  it('takes acceptEviction=true out of the URL into the option', () => {
    expect(redisOptionsFromUrl('redis://h:1/0?prefix=p&acceptEviction=true')).toEqual({
      url: 'redis://h:1/0',
      prefix: 'p',
      acceptEviction: true,
    })
    expect(redisOptionsFromUrl('redis+cluster://h1:7000?acceptEviction=true').acceptEviction).toBe(true)
  })

  it('takes waitReplicas and waitTimeoutMs out of any Redis URL, as numbers', () => {
    expect(redisOptionsFromUrl('redis://h:1/0?prefix=p&waitReplicas=1&waitTimeoutMs=250&family=6')).toEqual({
      url: 'redis://h:1/0?family=6',
      prefix: 'p',
      waitReplicas: 1,
      waitTimeoutMs: 250,
    })
    expect(redisOptionsFromUrl('redis+cluster://h1:7000?waitReplicas=2')).toMatchObject({ waitReplicas: 2 })
    expect(redisOptionsFromUrl('redis+cluster://h1:7000?waitReplicas=2')).not.toHaveProperty('waitTimeoutMs')
    expect(redisOptionsFromUrl('redis+sentinel://s1/primary?waitReplicas=1&waitTimeoutMs=900')).toMatchObject({
      waitReplicas: 1,
      waitTimeoutMs: 900,
    })
  })

  it.each([
    ['redis://:hunter2@h:1?waitReplicas=one', /waitReplicas must be a whole number, got "one"/],
    ['redis://:hunter2@h:1?waitReplicas=-1', /waitReplicas must be a whole number, got "-1"/],
    ['redis+cluster://:hunter2@h:1?waitReplicas=1&waitTimeoutMs=0', /waitTimeoutMs must be a positive whole number/],
    ['redis+sentinel://:hunter2@s1/primary?waitReplicas=1&waitTimeoutMs=1.5', /waitTimeoutMs must be a whole number/],
    ['redis://:hunter2@h:1?waitTimeoutMs=500', /set waitReplicas too/],
  ])('refuses %s with CONFIG_INVALID, naming the parameter and not the password', (url, message) => {
    expect(() => redisOptionsFromUrl(url)).toThrow(message)
    expect(() => redisOptionsFromUrl(url)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
    expect(() => redisOptionsFromUrl(url)).not.toThrow(/hunter2/)
  })

  it('takes waitReplicas and waitTimeoutMs as options of RedisDurability and RedisStore, and refuses them invalid', () => {
    expect(new RedisDurability({ url: 'redis://h:1', waitReplicas: 2 }).kv.connection.replicaWait).toMatchObject({
      replicas: 2,
      timeoutMs: 1_000,
    })
    expect(new RedisDurability({ url: 'redis://h:1', waitReplicas: 0 }).kv.connection.replicaWait).toBeUndefined()
    expect(new RedisDurability({ url: 'redis://h:1' }).kv.connection.replicaWait).toBeUndefined()
    const store = new RedisStore({ url: 'redis://h:1', waitReplicas: 1, waitTimeoutMs: 50 })
    expect(store.durability().kv.connection.replicaWait).toMatchObject({ replicas: 1, timeoutMs: 50 })
    const plain = new RedisDurability({ url: 'redis://h:1/0?waitReplicas=2&family=6' }).kv.connection
    expect(plain.replicaWait).toMatchObject({ replicas: 2, timeoutMs: 1_000 })
    expect(() => new RedisDurability({ url: 'redis://h:1?waitReplicas=x' })).toThrow(/waitReplicas must be a whole number/)
    const sentinel = new RedisDurability({ url: 'redis+sentinel://s1/primary?waitReplicas=1&waitTimeoutMs=70' })
    expect(sentinel.kv.connection.replicaWait).toMatchObject({ replicas: 1, timeoutMs: 70 })
    for (const bad of [{ waitReplicas: 1.5 }, { waitReplicas: -1 }, { waitReplicas: 1, waitTimeoutMs: 0 }, { waitTimeoutMs: 10 }]) {
      expect(() => new RedisDurability({ url: 'redis://h:1', ...bad })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
    }
  })

  it('reads a cluster URL into nodes and per-node options', () => {
    expect(redisOptionsFromUrl('redis+cluster://h1:7000,h2:7001,[::1]:7002?prefix=P')).toEqual({
      cluster: {
        nodes: [
          { host: 'h1', port: 7000 },
          { host: 'h2', port: 7001 },
          { host: '::1', port: 7002 },
        ],
        options: { redisOptions: {} },
      },
      prefix: 'P',
    })
    expect(redisOptionsFromUrl('rediss+cluster://bot:p%40ss@h1:7000')).toEqual({
      cluster: { nodes: [{ host: 'h1', port: 7000 }], options: { redisOptions: { username: 'bot', password: 'p@ss' } } },
      prefix: 'botmesh',
      tls: {},
    })
  })

  it('carries the TLS parameters (caFile, certFile, keyFile, servername) as the tls option', () => {
    expect(redisOptionsFromUrl('rediss+cluster://h1:7000?caFile=/etc/ca.pem&servername=cache.internal&prefix=P')).toMatchObject({
      tls: { caFile: '/etc/ca.pem', servername: 'cache.internal' },
      prefix: 'P',
    })
    expect(() => redisOptionsFromUrl('redis+cluster://h1:7000?caFile=/etc/ca.pem')).toThrow(/need rediss\+cluster:\/\//)
    // A single server's URL keeps them: the connection takes them out (takeTlsParams).
    const single = redisOptionsFromUrl('rediss://:pw@h:6380/2?caFile=/etc/ca%20dir/ca.pem&prefix=P&family=4')
    expect(single).toEqual({ url: 'rediss://:pw@h:6380/2?caFile=%2Fetc%2Fca+dir%2Fca.pem&family=4', prefix: 'P' })
    expect(takeTlsParams(single.url!)).toEqual({ url: 'rediss://:pw@h:6380/2?family=4', tls: { caFile: '/etc/ca dir/ca.pem' } })
    expect(takeTlsParams('rediss://h:6380')).toEqual({ url: 'rediss://h:6380', tls: undefined })
  })

  it('reads a Sentinel URL into the sentinel option: the sentinels, the master name, the database, both logins', () => {
    expect(
      redisOptionsFromUrl(
        'redis+sentinel://bot:p%40ss:w@s1:26380,s2,[::1]:26381/my%20primary/3?prefix=P&sentinelPassword=sp&requirePersistence=true',
      ),
    ).toEqual({
      sentinel: {
        sentinels: [
          { host: 's1', port: 26380 },
          { host: 's2', port: 26379 },
          { host: '::1', port: 26381 },
        ],
        name: 'my primary',
        db: 3,
        username: 'bot',
        password: 'p@ss:w',
        sentinelPassword: 'sp',
      },
      prefix: 'P',
      requirePersistence: true,
    })
    expect(redisOptionsFromUrl('rediss+sentinel://s1:26379/primary?caFile=/etc/ca.pem&sentinelUsername=watch')).toEqual({
      sentinel: { sentinels: [{ host: 's1', port: 26379 }], name: 'primary', sentinelUsername: 'watch' },
      prefix: 'botmesh',
      tls: { caFile: '/etc/ca.pem' },
    })
  })

  it.each([
    ['redis+sentinel://s1:26379', /names no master/],
    ['redis+sentinel://s1:26379/', /names no master/],
    ['redis+sentinel:///primary', /names no sentinel/],
    ['redis+sentinel://s1:0/primary', /bad sentinel "s1:0"/],
    ['redis+sentinel://s1/primary/db1', /only a database number may follow .*"\/db1"/],
    ['redis+sentinel://s1/primary/1/x', /only a database number may follow/],
    ['redis+sentinel://s1/primary?servername=x', /TLS settings need rediss\+sentinel/],
    ['redis+sentinel://s1/primary?family=4', /unknown parameter "family" \(a Sentinel URL takes prefix, /],
  ])('refuses %s with CONFIG_INVALID', (url, message) => {
    expect(() => redisOptionsFromUrl(url)).toThrow(message)
    expect(() => redisOptionsFromUrl(url)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
  })

  it('never shows a sentinel password in a message', () => {
    expect(() => redisOptionsFromUrl('redis+sentinel://:hunter2@s1/primary?sentinelPassword=hunter3&x=1')).toThrow(/unknown parameter/)
    expect(() => redisOptionsFromUrl('redis+sentinel://:hunter2@s1/primary?sentinelPassword=hunter3&x=1')).not.toThrow(/hunter/)
  })

  it('refuses what it cannot read, without the password in the message', () => {
    expect(() => redisOptionsFromUrl('postgres://x')).toThrow(ConfigError)
    expect(() => redisOptionsFromUrl('redis+cluster://:hunter2@h1:notaport')).toThrow(/h1:notaport/)
    expect(() => redisOptionsFromUrl('redis+cluster://:hunter2@h1:notaport')).not.toThrow(/hunter2/)
    expect(redactRedisUrl('redis://user:hunter2@h:1/0?prefix=p')).toBe('redis://user:***@h:1/0?prefix=p')
    expect(redactRedisUrl('redis://h:1')).toBe('redis://h:1')
  })
})
