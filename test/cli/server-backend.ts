/**
 * What the CLI must do on every server backend (Redis, PostgreSQL), against the real server: read
 * and change a seeded journal, run the conformance suite and a crash case on throwaway prefixes
 * beside the operator's data without touching it, fail fast on a server that is not there or
 * never answers, and never show a password.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { SEED_SCOPE, seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf } from './helpers.js'

export interface ServerBackend {
  /** A URL under a prefix of its own, or under `prefix` (registered for cleanup). */
  url(prefix?: string): string
  /** The URL of a server port where nothing listens. */
  closedPortUrl: string
  /** A URL naming `port` on 127.0.0.1. */
  urlAtPort(port: number): string
  /** A URL with a user the server does not accept, and a password. */
  badCredentialsUrl: string
  /** Environment a bare name needs to find the test server. */
  env: Record<string, string>
  /** Names of everything stored under the URL's prefix (keys or tables), for "nothing else was touched". */
  stored(url: string): Promise<string[]>
  /** Throwaway leftovers beside the URL's prefix. */
  throwaways(url: string): Promise<string[]>
  /** The prefix (Redis `prefix`, PostgreSQL `tablePrefix`) a URL names. */
  prefixOf(url: string): string
}

export function describeServerBackend(name: string, server: ServerBackend): void {
  describe.concurrent(`${name}: a seeded journal`, () => {
    it('lists and shows', async () => {
      const url = server.url()
      await seedJournal(url)
      const scopes = jsonOf<{ scopes: { scope: string; dead: number }[] }>(await botmesh(['scopes', '--json', '--backend', url]))
      expect(scopes.scopes).toMatchObject([{ scope: SEED_SCOPE, dead: 5 }])
      const dlq = jsonOf<{ records: { id: string }[] }>(await botmesh(['dlq', 'list', '--json', '--backend', url]))
      expect(dlq.records.map((r) => r.id)).toEqual(['in-dead-1', 'in-dead-2', 'in-dead-3', 'out-dead-1', 'out-dead-2'])
      const stats = jsonOf<{ outbox: { counts: Record<string, number> } }>(await botmesh(['stats', '--json', '--backend', url]))
      expect(stats.outbox.counts).toEqual({ pending: 2, sending: 1, sent: 1, failed: 2, dead: 2, unknown: 1 })
      const shown = jsonOf<{ why: string }[]>(await botmesh(['show', 'part:1#2', '--json', '--backend', url]))
      expect(shown[0]!.why).toMatch(/^waiting behind part part:1 \(failed\)/)
      const verify = await botmesh(['verify', '--json', '--backend', url])
      expect(verify.code).toBe(0)
      expect(jsonOf<{ ok: boolean; report: { records: number } }>(verify)).toMatchObject({ ok: true, report: { records: 18 } })
    })

    it('searches by content (--search): in the database on PostgreSQL, in the process on Redis', async () => {
      const url = server.url()
      await seedJournal(url)
      const ids = async (...args: string[]) =>
        jsonOf<{ records: { id: string }[] }>(await botmesh([...args, '--json', '--backend', url])).records.map((r) => r.id)
      expect(await ids('inbox', 'list', '--search', 'TEXT OF IN-DEAD-2')).toEqual(['in-dead-2'])
      expect(await ids('outbox', 'list', '--search', 'Reply Out-Dead')).toEqual(['out-dead-1', 'out-dead-2'])
      expect(await ids('dlq', 'list', '--search', 'dead-1')).toEqual(['in-dead-1', 'out-dead-1'])
      expect(await ids('dlq', 'list', '--search', "_%'")).toEqual([])
    })

    it('replays and retries, one and in bulk', async () => {
      const url = server.url()
      await seedJournal(url)
      expect((await botmesh(['replay', 'in-dead-1', '--yes', '--reason', 'fixed', '--backend', url])).code).toBe(0)
      const bulk = jsonOf<{ succeeded: number }>(
        await botmesh(['retry', '--all-dead', '--all-unknown', '--rate', '50', '--yes', '--json', '--backend', url]),
      )
      expect(bulk.succeeded).toBe(3)
      const stats = jsonOf<{ dead: { inbox: number; outbox: number } }>(await botmesh(['stats', '--json', '--backend', url]))
      expect(stats.dead).toEqual({ inbox: 2, outbox: 0 })
      const shown = jsonOf<{ record: { audit: { reason?: string }[] } }[]>(await botmesh(['show', 'in-dead-1', '--json', '--backend', url]))
      expect(shown[0]!.record.audit[0]!.reason).toBe('fixed')
    })
  })

  describe(`${name}: the suites run beside the operator's data, never on it`, () => {
    it('conformance and a crash case leave the journal and the server as they were', async () => {
      const url = server.url()
      await seedJournal(url)
      const before = await server.stored(url)
      const conformance = await botmesh(['conformance', '--json', '--backend', url])
      expect(conformance.code, conformance.stderr).toBe(0)
      const report = jsonOf<{ cases: number; failed: number; instances: string }>(conformance)
      expect(report.failed).toBe(0)
      expect(report.cases).toBeGreaterThan(10)
      const crash = await botmesh(['crash-matrix', '--match', 'before outbox.markSent (skip)', '--json', '--backend', url])
      expect(crash.code, crash.stderr).toBe(0)
      expect(jsonOf<{ cases: number; failed: number; crashedAsAimed: number }>(crash)).toMatchObject({
        cases: 1,
        failed: 0,
        crashedAsAimed: 1,
      })
      expect(await server.stored(url)).toEqual(before)
      expect(await server.throwaways(url)).toEqual([])
    }, 120_000)

    it('a bare name runs on a throwaway instance of the test server', async () => {
      const result = await botmesh(['conformance', '--match', 'scopes keep records apart', '--backend', name], { env: server.env })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/1 passed, 0 failed/)
    })
  })

  describe(`${name}: a URL that points at no journal`, () => {
    it('every read (and change) is JOURNAL_MISSING naming what it looked for and the prefixes found; nothing is created', async () => {
      const seeded = server.url()
      await seedJournal(seeded)
      // One character off, as a typo is: the message lists the seeded prefix first among many.
      const seededPrefix = server.prefixOf(seeded)
      const typo = server.url(`${seededPrefix.slice(0, -2)}${seededPrefix.at(-2) === 'a' ? 'b' : 'a'}${seededPrefix.at(-1)}`)
      const commands = [
        ['stats'],
        ['dlq', 'list'],
        ['inbox', 'list'],
        ['show', 'in-dead-1'],
        ['verify'],
        ['scopes'],
        ['export'],
        ['replay', 'in-dead-1', '--yes'],
      ]
      const results = await Promise.all(commands.map((args) => botmesh([...args, '--backend', typo])))
      for (const [index, result] of results.entries()) {
        const command = commands[index]!.join(' ')
        expect(result.code, command).toBe(2)
        expect(result.stdout, command).toBe('')
        expect(result.stderr, command).toContain(`"${server.prefixOf(typo)}`)
        expect(result.stderr, command).toContain(`nearest first: "${seededPrefix}"`)
        expect(result.stderr, command).toMatch(/\(JOURNAL_MISSING\)$/m)
      }
      expect(await server.stored(typo)).toEqual([])
    })
  })

  describe.concurrent(`${name}: bad input`, () => {
    const silent: Server[] = []
    const sockets = new Set<Socket>()
    afterAll(async () => {
      for (const socket of sockets) socket.destroy()
      await Promise.all(silent.map((s) => new Promise((resolve) => s.close(resolve))))
    })

    it('a server that is not there fails at once, exit 2', async () => {
      const result = await botmesh(['stats', '--backend', server.closedPortUrl])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/ECONNREFUSED.*\(JOURNAL_UNAVAILABLE\)/)
    })

    it('a server that never answers fails after --connect-timeout, exit 2', async () => {
      const listener = createServer((socket) => {
        sockets.add(socket)
        socket.on('error', () => {})
      })
      silent.push(listener)
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
      const port = (listener.address() as { port: number }).port
      const result = await botmesh(['dlq', 'list', '--connect-timeout', '1s', '--backend', server.urlAtPort(port)], { timeoutMs: 30_000 })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('(JOURNAL_UNAVAILABLE)')
    })

    it('wrong credentials: AUTH_FAILED, password redacted', async () => {
      const result = await botmesh(['stats', '--backend', server.badCredentialsUrl])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('the server refused the credentials')
      expect(result.stderr).toContain('(AUTH_FAILED)')
      expect(result.stderr).not.toContain('hunter2')
    })
  })
}
