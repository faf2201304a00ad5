/**
 * Throwaway instances of one server say what their start finds about it once per factory: a crash
 * matrix on a Redis without persistence printed the same warning for each of its dozens of cases.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { silencePersistenceWarnings } from '../../src/backends/common/persistence.js'
import { parseBackendUrl, throwawayFactory } from '../../src/operator/gateway/open.js'
import { throwawayLog } from '../../src/operator/gateway/throwaway.js'
import { REDIS_URL, redisAvailable } from '../../test-utils/redis.js'

const redis = await redisAvailable('throwaway instances warn once on the machine Redis')

afterEach(() => {
  vi.restoreAllMocks()
  silencePersistenceWarnings((id) => id === 'redis-no-persistence')
})

describe('throwawayLog', () => {
  it('says each warning and each note once, and every error', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    const errors: string[] = []
    const log = throwawayLog({ error: (message) => errors.push(message) })
    for (let n = 0; n < 3; n++) (log.warn('no persistence'), log.info('everysec'), log.error('dropped'))
    log.warn('evicting')
    expect(warn.mock.calls).toEqual([['no persistence'], ['evicting']])
    expect(info.mock.calls).toEqual([['everysec']])
    expect(errors).toEqual(['dropped', 'dropped', 'dropped'])
  })
})

describe.runIf(redis)('throwaway Redis instances on a server without persistence', () => {
  it('warn once between them', async () => {
    // The suite silences this warning (test-utils/quiet-persistence.ts); here it is what is counted.
    silencePersistenceWarnings(undefined)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const factory = throwawayFactory(parseBackendUrl(REDIS_URL))
    const backends = await Promise.all([factory.create(), factory.create(), factory.create()])
    try {
      for (const backend of backends) await backend.start()
    } finally {
      for (const backend of backends) await factory.cleanup(backend)
    }
    const persistence = warn.mock.calls.filter(([message]) => String(message).includes('appendonly'))
    expect(persistence).toHaveLength(1)
  })
})
