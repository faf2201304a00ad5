/**
 * A chat's order under SIGKILL on every backend that survives a crash (test-utils/order-kill.ts):
 * bursts with ids that sort against their arrival, kills at drawn moments, a message that kills the
 * process on every run with two behind it. Scaled up for a closing note with ORDER_KILL_MESSAGES and
 * ORDER_KILL_KILLS (see docs/crash-testing.md).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { FileDurability } from '../../src/backends/file/index.js'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { RedisDurability } from '../../src/backends/redis/index.js'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { describeOrderKill } from '../../test-utils/order-kill.js'
import { dropTablePrefix, PG_URL, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { REDIS_URL, deletePrefix, randomPrefix, redisAvailable } from '../../test-utils/redis.js'
import { eventsCrashTarget } from '../fixtures/events/process-crash-backend.js'

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))

describeOrderKill('SQLiteDurability', {
  module: fixture('process-crash/sqlite-backend.ts'),
  prepare(dir) {
    const file = join(dir, 'bot.db')
    return { arg: { file }, open: async () => new SQLiteStore({ file }).durability() }
  },
})

describeOrderKill('FileDurability (appendLog)', {
  module: fixture('order-kill/file-backend.ts'),
  prepare(dir) {
    const arg = { file: join(dir, 'durable.json'), storeFile: join(dir, 'store.db') }
    return { arg, open: () => FileDurability.open(arg.file) }
  },
})

describeOrderKill('eventsDurability over a locked FileEventJournal', eventsCrashTarget('locked'))

if (await redisAvailable('the order-kill test on the machine Redis'))
  describeOrderKill('RedisDurability', {
    module: fixture('process-crash/redis-backend.ts'),
    prepare() {
      const prefix = randomPrefix()
      return {
        arg: { url: REDIS_URL, prefix },
        open: async () => new RedisDurability({ url: REDIS_URL, prefix }),
        cleanup: async () => {
          const admin = new Redis(REDIS_URL)
          await deletePrefix(admin, prefix)
          await admin.quit()
        },
      }
    },
  })

if (await postgresAvailable())
  describeOrderKill('PostgresDurability', {
    module: fixture('process-crash/postgres-backend.ts'),
    prepare() {
      const tablePrefix = randomTablePrefix()
      return {
        arg: { connectionString: PG_URL, tablePrefix },
        open: async () => new PostgresDurability({ connectionString: PG_URL, tablePrefix }),
        cleanup: () => dropTablePrefix(tablePrefix),
      }
    },
  })
