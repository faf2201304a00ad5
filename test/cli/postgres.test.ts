/** The CLI against the machine's real PostgreSQL (skipped loudly when it is missing, failing under CI=true). */
import { afterAll, describe } from 'vitest'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix, tablesUnder } from '../../test-utils/postgres.js'
import { describeServerBackend } from './server-backend.js'

const available = await postgresAvailable()

describe.runIf(available)('botmesh CLI on PostgreSQL', () => {
  const prefixes: string[] = []
  const prefixOf = (url: string) => new URL(url).searchParams.get('tablePrefix')!
  afterAll(async () => {
    for (const prefix of prefixes) await dropTablePrefix(prefix)
  })
  const withPort = (port: number) => {
    const url = new URL(PG_URL)
    url.port = String(port)
    url.password = 'hunter2'
    return url.toString()
  }
  const badUser = new URL(PG_URL)
  badUser.username = 'nobody_here'
  badUser.password = 'hunter2'

  describeServerBackend('postgres', {
    url: (prefix = randomTablePrefix()) => {
      prefixes.push(prefix)
      const url = new URL(PG_URL)
      url.searchParams.set('tablePrefix', prefix)
      return url.toString()
    },
    closedPortUrl: withPort(1),
    urlAtPort: withPort,
    badCredentialsUrl: badUser.toString(),
    env: { BOTMESH_POSTGRES_URL: PG_URL },
    stored: async (url) => {
      const prefix = prefixOf(url)
      return (await tablesUnder(prefix)).filter((table) => !table.startsWith(`${prefix}tmp_`))
    },
    throwaways: async (url) => tablesUnder(`${prefixOf(url)}tmp_`),
    prefixOf,
  })
})
