/**
 * `RedisDurability` behind Sentinel: the `sentinel` option and a `redis+sentinel://` URL reach the
 * primary the sentinels name; after a failover the client is on the promoted replica and the
 * start's checks run again there: a primary `requirePersistence` would have refused at start is
 * refused now (retryable, naming the setting) until its settings are fixed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { ERROR_CODES } from '../../src/core/errors/errors.js'
import { randomPrefix, redisBinariesAvailable } from '../../test-utils/redis.js'
import { cli, MASTER_NAME, startSentinelGroup, type SentinelGroup } from '../../test-utils/redis-sentinel.js'
import { waitFor } from '../../test-utils/wait.js'

describe('the sentinel option, refused before anything connects (CONFIG_INVALID)', () => {
  it.each([
    [{ sentinel: { sentinels: [], name: 'p' } }, /names no sentinel/],
    [{ sentinel: { sentinels: [{ host: 'h', port: 70_000 }], name: 'p' } }, /bad sentinel address/],
    [{ sentinel: { sentinels: [{ host: 'h' }], name: '' } }, /sentinel.name must be the master name/],
    [{ sentinel: { sentinels: [{ host: 'h' }], name: 'p', db: -1 } }, /sentinel.db must be a database number/],
    [{ sentinel: { sentinels: [{ host: 'h' }], name: 'p', enableTLSForSentinelMode: true } }, /give the tls option/],
    [{ sentinel: { sentinels: [{ host: 'h' }], name: 'p' }, url: 'redis://h:1' }, /exactly one of client, url, cluster or sentinel; got 2/],
    [{ sentinels: [{ host: 'h' }], name: 'p' }, /give sentinel: \{ sentinels/],
    [{ url: 'redis+sentinel://h/p?prefix=x' }, /give the key prefix as the prefix option/],
    [{ url: 'redis+sentinel://h' }, /names no master/],
  ])('%j', (options, message) => {
    const build = () => new RedisDurability(options as never)
    expect(build).toThrow(message)
    expect(build).toThrow(expect.objectContaining({ code: ERROR_CODES.CONFIG_INVALID }))
  })
})

const available = await redisBinariesAvailable('RedisDurability behind Sentinel')

describe.runIf(available)('RedisDurability behind a private Sentinel', () => {
  let group: SentinelGroup
  beforeAll(async () => {
    group = await startSentinelGroup({ sentinels: 1, flags: ['--appendonly', 'yes', '--appendfsync', 'always'] })
  }, 120_000)
  afterAll(async () => {
    await group?.stop()
  })

  it('follows a failover; a promoted primary without AOF is refused under requirePersistence until it has it', async () => {
    const said: string[] = []
    const logger = { error: () => {}, warn: (message: string) => said.push(message), info: (message: string) => said.push(message) }
    const prefix = randomPrefix()
    const byOption = new RedisDurability({
      sentinel: { sentinels: group.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })), name: MASTER_NAME },
      prefix,
      requirePersistence: true,
      logger,
    })
    const byUrl = new RedisDurability({ url: group.url(prefix).replace(`?prefix=${prefix}`, ''), prefix, logger: { error: () => {} } })
    await byOption.start()
    await byUrl.start()
    try {
      expect(byOption.kv.connection.target).toBe(
        `the Redis primary "${MASTER_NAME}" behind the sentinels 127.0.0.1:${group.sentinelPorts[0]}, database 0`,
      )
      await byOption.journal('s').count('inbox')
      // The replica about to be promoted keeps no journal on disk.
      await cli(group.replica.port, 'CONFIG', 'SET', 'appendonly', 'no')
      await group.failover()
      await group.waitForPrimary(group.replica)

      const refusal = await waitFor(
        () =>
          byOption
            .journal('s')
            .count('inbox')
            .then(
              () => undefined,
              (error: unknown) => error,
            ),
        {
          timeoutMs: 60_000,
          intervalMs: 100,
          message: 'a call refused on the promoted primary',
        },
      )
      expect(refusal).toMatchObject({ code: ERROR_CODES.JOURNAL_UNAVAILABLE, retryable: true })
      expect((refusal as Error).message).toMatch(
        new RegExp(`primary Sentinel promoted \\(127\\.0\\.0\\.1:${group.replica.port}\\) is refused: .*appendonly is "no"`),
      )
      expect(said.join('\n')).toContain(`to 127.0.0.1:${group.replica.port} (a failover)`)
      // Without requirePersistence the same primary serves, with the warning.
      expect(await byUrl.journal('s').count('inbox')).toEqual({})

      await cli(group.replica.port, 'CONFIG', 'SET', 'appendonly', 'yes')
      await cli(group.replica.port, 'CONFIG', 'SET', 'appendfsync', 'always')
      await waitFor(
        () =>
          byOption
            .journal('s')
            .count('inbox')
            .then(
              () => true,
              () => false,
            ),
        {
          timeoutMs: 60_000,
          intervalMs: 200,
          message: 'calls served again once the promoted primary has AOF',
        },
      )
    } finally {
      await byOption.stop()
      await byUrl.stop()
    }
  }, 180_000)
})
