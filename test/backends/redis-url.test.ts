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
