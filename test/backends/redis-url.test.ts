import { describe, expect, it } from 'vitest'
import { redactRedisUrl, redisOptionsFromUrl } from '../../src/backends/redis/index.js'
import { ConfigError } from '../../src/core/errors.js'

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
    expect(redisOptionsFromUrl('rediss+cluster://bot:p%40ss@h1:7000').cluster).toEqual({
      nodes: [{ host: 'h1', port: 7000 }],
      options: { redisOptions: { username: 'bot', password: 'p@ss', tls: {} } },
    })
  })

  it('refuses what it cannot read, without the password in the message', () => {
    expect(() => redisOptionsFromUrl('postgres://x')).toThrow(ConfigError)
    expect(() => redisOptionsFromUrl('redis+cluster://:hunter2@h1:notaport')).toThrow(/h1:notaport/)
    expect(() => redisOptionsFromUrl('redis+cluster://:hunter2@h1:notaport')).not.toThrow(/hunter2/)
    expect(redactRedisUrl('redis://user:hunter2@h:1/0?prefix=p')).toBe('redis://user:***@h:1/0?prefix=p')
    expect(redactRedisUrl('redis://h:1')).toBe('redis://h:1')
  })
})
