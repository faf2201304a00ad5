/**
 * A crash case cut off while its backend restarts (Ctrl-C during `botmesh crash-matrix`) still
 * removes its throwaway data on the real servers. The restart had already stopped the crashed
 * backend's connection, and the cleanup used to go through that connection: it failed with
 * NOT_STARTED, and the keys (or tables) the case wrote stayed behind.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { parseBackendUrl, throwawayFactory } from '../../src/operator/gateway/open.js'
import { deterministicCases, runCrashCase, type CrashBackendFactory } from '../../src/testing/crash-matrix/index.js'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix, tablesUnder } from '../../test-utils/postgres.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable, scanKeys } from '../../test-utils/redis.js'

const [redis, postgres] = await Promise.all([redisAvailable('crash-matrix throwaway cleanup on the machine Redis'), postgresAvailable()])

/** The throwaway factory of `url`, whose restart aborts the case as it begins (the connection of the crashed backend already stopped). */
function abortingOnRestart(url: string, abort: AbortController): CrashBackendFactory {
  const factory = throwawayFactory(parseBackendUrl(url))
  return {
    create: () => factory.create(),
    restart: async (crashed) => {
      const restarting = factory.restart!(crashed)
      abort.abort()
      return restarting
    },
    cleanup: (backend) => factory.cleanup(backend),
  }
}

/** Runs a case that crashes in generation 0, cut off during the restart that follows. */
async function cutOffDuringRestart(url: string): Promise<string[]> {
  const abort = new AbortController()
  const testCase = deterministicCases().find((found) => found.name === 'after outbox.markSent (resend)')!
  const result = await runCrashCase(abortingOnRestart(url, abort), testCase, { signal: abort.signal })
  return result.problems
}

describe.runIf(redis)('crash matrix on Redis: a case cut off during its restart', () => {
  const admin = new Redis(REDIS_URL)
  const prefix = randomPrefix()
  afterAll(async () => {
    await deletePrefix(admin, prefix)
    await admin.quit()
  })

  it('removes every key it wrote', async () => {
    const problems = await cutOffDuringRestart(`${REDIS_URL}?prefix=${prefix}`)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/was interrupted at: restarting after generation 0 crashed/)
    expect(await scanKeys(admin, `${prefix}*`)).toEqual([])
  }, 60_000)
})

describe.runIf(postgres)('crash matrix on PostgreSQL: a case cut off during its restart', () => {
  const prefix = randomTablePrefix()
  afterAll(() => dropTablePrefix(prefix))

  it('drops every table it made', async () => {
    const problems = await cutOffDuringRestart(`${PG_URL}?tablePrefix=${prefix}`)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/was interrupted at: restarting after generation 0 crashed/)
    expect(await tablesUnder(prefix)).toEqual([])
  }, 60_000)
})
