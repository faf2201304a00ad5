import { describe, expect, it } from 'vitest'
import { redactRedisUrl, redisOptionsFromUrl } from '../../src/backends/redis/index.js'
import { takeTlsParams } from '../../src/backends/redis/tls.js'
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

  it('refuses what it cannot read, without the password in the message', () => {
    expect(() => redisOptionsFromUrl('postgres://x')).toThrow(ConfigError)
    expect(() => redisOptionsFromUrl('redis+cluster://:hunter2@h1:notaport')).toThrow(/h1:notaport/)
    expect(() => redisOptionsFromUrl('redis+cluster://:hunter2@h1:notaport')).not.toThrow(/hunter2/)
    expect(redactRedisUrl('redis://user:hunter2@h:1/0?prefix=p')).toBe('redis://user:***@h:1/0?prefix=p')
    expect(redactRedisUrl('redis://h:1')).toBe('redis://h:1')
  })
})
