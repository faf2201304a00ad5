/**
 * PostgreSQL's `synchronous_commit` and `fsync`, checked at start (issue 42): a role made by the
 * test with `synchronous_commit = off` (ALTER ROLE … SET), and a connection string whose `options`
 * set it for the session, are warned about at each start, naming the setting, and refused under
 * `requirePersistence` (option and backend URL). The check rides on the start's own DDL message:
 * no round trip of its own. `fsync` is a server-wide setting the test cannot turn off, so its
 * wording is checked on the finding.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresDurability, PostgresStore } from '../../src/backends/postgres/index.js'
import { postgresPersistence } from '../../src/backends/postgres/persistence-check.js'
import { silencePersistenceWarnings } from '../../src/backends/common/persistence.js'
import { openBackend, parseBackendUrl } from '../../src/operator/gateway/open.js'
import { recordingLogger, refusal } from '../../test-utils/persistence-findings.js'
import {
  PG_URL,
  adminQuery,
  countRoundTrips,
  dropTablePrefix,
  pgUrlWith,
  postgresAvailable,
  randomTablePrefix,
  testPool,
} from '../../test-utils/postgres.js'

// The suite may silence persistence warnings (test-utils/quiet-persistence.ts); here they are the subject.
silencePersistenceWarnings(undefined)

const available = await postgresAvailable()

describe.runIf(available)('PostgreSQL with synchronous_commit = off', () => {
  const role = `bm_persist_${randomBytes(5).toString('hex')}`
  const prefixes: string[] = []
  /** The test server, as the role whose sessions run with synchronous_commit = off. */
  let roleUrl: string
  const prefix = () => {
    const made = randomTablePrefix()
    prefixes.push(made)
    return made
  }

  beforeAll(async () => {
    await adminQuery(`CREATE ROLE ${role} LOGIN`)
    await adminQuery(`ALTER ROLE ${role} SET synchronous_commit = off`)
    await adminQuery(`GRANT USAGE, CREATE ON SCHEMA public TO ${role}`)
    const url = new URL(PG_URL)
    url.username = role
    url.password = ''
    roleUrl = url.toString()
  })

  afterAll(async () => {
    for (const made of prefixes) await dropTablePrefix(made)
    // The role owns the tables it created: DROP OWNED takes them and its grant.
    await adminQuery(`DROP OWNED BY ${role}`)
    await adminQuery(`DROP ROLE ${role}`)
  })

  it('warns at each start, naming synchronous_commit, once for a store and its durability', async () => {
    const { said, logger } = recordingLogger()
    const durability = new PostgresDurability({ connectionString: roleUrl, tablePrefix: prefix(), logger })
    for (let start = 0; start < 2; start++) {
      await durability.start()
      await durability.stop()
    }
    expect(said.warn).toHaveLength(2)
    expect(said.warn[0]).toMatch(
      /^botmesh: 127\.0\.0\.1:5432\/test: synchronous_commit is "off": a commit is acknowledged before its WAL is on disk/,
    )
    expect(said.warn[0]).toMatch(/Set synchronous_commit = on.*requirePersistence: true/)

    const store = new PostgresStore({ connectionString: roleUrl, tablePrefix: prefix(), logger })
    await store.start()
    await store.durability().start()
    await store.durability().stop()
    await store.stop()
    expect(said.warn).toHaveLength(3)
    expect(said.info).toEqual([])
  })

  it('sees a session setting in the connection string, and reads it in the start’s DDL message', async () => {
    const { said, logger } = recordingLogger()
    const pool = testPool({ connectionString: pgUrlWith({ options: '-c synchronous_commit=off' }) })
    const trips = countRoundTrips(pool)
    const durability = new PostgresDurability({ pool, tablePrefix: prefix(), logger })
    try {
      await durability.start()
      expect(trips.queries).toBe(1)
      await durability.stop()
    } finally {
      await pool.end()
    }
    expect(said.warn).toHaveLength(1)
    expect(said.warn[0]).toMatch(/synchronous_commit is "off"/)
  })

  it('refuses to start under requirePersistence, by option and by backend URL', async () => {
    const durability = new PostgresDurability({ connectionString: roleUrl, tablePrefix: prefix(), requirePersistence: true })
    const error = await refusal(durability.start())
    expect(error.message).toMatch(/synchronous_commit is "off".*, and requirePersistence is set\. Set synchronous_commit = on/)
    await refusal(new PostgresStore({ connectionString: roleUrl, tablePrefix: prefix(), requirePersistence: true }).start())

    const url = new URL(roleUrl)
    url.searchParams.set('tablePrefix', prefix())
    url.searchParams.set('requirePersistence', 'true')
    const target = parseBackendUrl(url.toString())
    expect(target).toMatchObject({ kind: 'postgres', requirePersistence: true })
    const opened = await openBackend(target, { access: 'create' }).then(
      () => undefined,
      (caught: unknown) => caught as { code?: string; message: string },
    )
    expect(opened?.code).toBe('CONFIG_INVALID')
    expect(opened?.message).toMatch(/synchronous_commit is "off"/)
  })

  it('says nothing, and starts under requirePersistence, where synchronous_commit is on', async () => {
    const { said, logger } = recordingLogger()
    const durability = new PostgresDurability({ connectionString: PG_URL, tablePrefix: prefix(), logger, requirePersistence: true })
    await durability.start()
    await durability.stop()
    expect(said).toEqual({ warn: [], info: [] })
  })
})

describe('the finding for fsync = off', () => {
  it('names fsync (and synchronous_commit with it), and what each loses', () => {
    const finding = postgresPersistence({ fsync: 'off', synchronous_commit: 'off' })
    expect(finding).toMatchObject({
      level: 'volatile',
      id: 'postgres-fsync-off',
      settings: 'fsync is "off" and synchronous_commit is "off"',
    })
    expect(JSON.stringify(finding)).toMatch(/a crash of the machine can lose committed journal writes.*Set fsync = on in postgresql.conf/)
    expect(postgresPersistence({ fsync: 'on', synchronous_commit: 'local' })).toEqual({ level: 'durable' })
  })
})
