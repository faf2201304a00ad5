/**
 * The read commands on a seeded SQLite journal: scopes, stats (--prometheus, --watch), inbox /
 * outbox / dlq lists with their filters and paging, show with its "why not running" sentence,
 * leases and instances; choosing a scope; and the bad inputs that touch nothing.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { SEED_SCOPE, seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
let url: string
let twoScopes: string

beforeAll(async () => {
  url = `sqlite:${join(tempDir(), 'bot.db')}`
  await seedJournal(url)
  twoScopes = `sqlite:${join(tempDir(), 'two.db')}`
  await seedJournal(twoScopes, [SEED_SCOPE, 'acme/prod/sales/default'])
})

const run = (...args: string[]) => botmesh([...args, '--backend', url])

interface Page {
  records: { kind: string; id: string; state: string; chatId: string; lastError: { code?: string } | null }[]
  next: string | null
}

describe.concurrent('read commands on SQLite', () => {
  it('scopes: the scope with its totals', async () => {
    const result = jsonOf<{ scopes: unknown[] }>(await run('scopes', '--json'))
    expect(result.scopes).toEqual([{ scope: SEED_SCOPE, botId: 'support', inbox: 8, outbox: 9, dead: 5, instances: 1 }])
  })

  it('stats: counts per state, oldest pending, dead letters, live instances, rates', async () => {
    const stats = jsonOf<Record<string, any>>(await run('stats', '--json'))
    expect(stats.scope).toBe(SEED_SCOPE)
    expect(stats.inbox.counts).toEqual({ pending: 1, processing: 1, done: 2, failed: 1, dead: 3 })
    expect(stats.outbox.counts).toEqual({ pending: 2, sending: 1, sent: 1, failed: 2, dead: 2, unknown: 1 })
    expect(stats.dead).toEqual({ inbox: 3, outbox: 2 })
    expect(stats.inbox.oldestPendingAgeMs).toBeGreaterThanOrEqual(5_000)
    expect(stats.instances).toEqual({ live: 1, ids: ['host-1/support/default'] })
    expect(stats.metrics.inboundJournaled).toBe(200)
    expect(stats.ratesPerSecond.inboundJournaled).toBeCloseTo(200 / 99, 1)
    const human = await run('stats')
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/dead letters\s+3 inbound, 2 outbound/)
  })

  it('stats --prometheus: the text format, every scope', async () => {
    const result = await botmesh(['stats', '--prometheus', '--backend', twoScopes])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('# TYPE botmesh_inbox_records gauge')
    expect(result.stdout).toContain(`botmesh_inbox_records{scope="${SEED_SCOPE}",state="dead"} 3`)
    expect(result.stdout).toContain('botmesh_outbox_records{scope="acme/prod/sales/default",state="unknown"} 1')
    expect(result.stdout).toContain('botmesh_inbound_journaled_total{scope="acme/prod/sales/default"} 200')
    expect(result.stdout).toMatch(/botmesh_live_instances\{scope="acme\/prod\/support\/default"\} 1/)
    for (const line of result.stdout.trim().split('\n')) expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+\{[^}]*\} [\d.e+-]+)$/)
  })

  it('stats --watch: one JSON line per sample, rates over the interval', async () => {
    const result = await run('stats', '--watch', '50ms', '--times', '3', '--json')
    expect(result.code).toBe(0)
    const samples = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(samples).toHaveLength(3)
    expect(samples.map((s) => s.ratesOver)).toEqual(['uptime', 'interval', 'interval'])
    expect(samples[2].ratesPerSecond.inboundJournaled).toBe(0)
  })

  it('inbox list: every state, or --state, oldest change first', async () => {
    const all = jsonOf<Page>(await run('inbox', 'list', '--json'))
    expect(all.records.map((r) => r.id)).toEqual([
      'in-pending',
      'in-processing',
      'in-done-1',
      'in-done-2',
      'in-failed',
      'in-dead-1',
      'in-dead-2',
      'in-dead-3',
    ])
    expect(all.next).toBeNull()
    const some = jsonOf<Page>(await run('inbox', 'list', '--state', 'failed,dead', '--json'))
    expect(some.records.map((r) => r.id)).toEqual(['in-failed', 'in-dead-1', 'in-dead-2', 'in-dead-3'])
  })

  it('outbox list: --chat, --error and --since filter; --limit and --after page', async () => {
    const [chat, error, recent] = (
      await Promise.all([
        run('outbox', 'list', '--chat', 'chat-b', '--json'),
        run('outbox', 'list', '--error', 'rate_limited', '--json'),
        run('outbox', 'list', '--state', 'dead', '--since', '10m', '--json'),
      ])
    ).map((result) => jsonOf<Page>(result))
    expect(chat!.records.map((r) => r.id).sort()).toEqual(['out-dead-2', 'part:1', 'part:1#2'])
    expect(error!.records.map((r) => r.id)).toEqual(['out-pending', 'out-dead-2'])
    expect(recent!.records.map((r) => r.id)).toEqual(['out-dead-2'])
    const first = jsonOf<Page>(await run('outbox', 'list', '--limit', '4', '--json'))
    expect(first.records).toHaveLength(4)
    const second = jsonOf<Page>(await run('outbox', 'list', '--limit', '4', '--after', first.next!, '--json'))
    const third = jsonOf<Page>(await run('outbox', 'list', '--limit', '4', '--after', second.next!, '--json'))
    const paged = [...first.records, ...second.records, ...third.records].map((r) => r.id)
    expect(paged).toHaveLength(9)
    expect(new Set(paged).size).toBe(9)
    expect(third.next).toBeNull()
    const human = await run('outbox', 'list', '--limit', '4')
    expect(human.stdout).toContain(`more: add --after ${first.next}`)
  })

  it('dlq list: both queues, or one --kind, with the last error', async () => {
    const both = jsonOf<Page>(await run('dlq', 'list', '--json'))
    expect(both.records.map((r) => `${r.kind}:${r.id}`)).toEqual([
      'inbox:in-dead-1',
      'inbox:in-dead-2',
      'inbox:in-dead-3',
      'outbox:out-dead-1',
      'outbox:out-dead-2',
    ])
    const outbox = jsonOf<Page>(await run('dlq', 'list', '--kind', 'outbox', '--json'))
    expect(outbox.records.map((r) => r.lastError?.code)).toEqual(['UNSUPPORTED_CONTENT', 'RATE_LIMITED'])
    const table = await run('dlq', 'list')
    expect(table.stdout.split('\n')[0]).toMatch(/^KIND\s+ID\s+STATE\s+CHAT\s+ATTEMPTS\s+UPDATED\s+LAST ERROR$/)
    expect(table.stdout).toMatch(/inbox\s+in-dead-1\s+dead\s+chat-a\s+5 .*CRM_REFUSED: the CRM refused the lead/)
  })

  it('dlq list names the sends whose outcome is unknown, and --unknown lists them', async () => {
    const table = await run('dlq', 'list')
    expect(table.stdout).toMatch(/^1 send's outcome is unknown .*: botmesh dlq list --unknown$/m)
    const json = await run('dlq', 'list', '--json')
    expect(json.stderr).toMatch(/^1 send's outcome is unknown/m)
    const unknown = jsonOf<Page>(await run('dlq', 'list', '--unknown', '--json'))
    expect(unknown.records.map((r) => `${r.kind}:${r.id}:${r.state}`)).toEqual(['outbox:out-unknown:unknown'])
    const human = await run('dlq', 'list', '--unknown')
    expect(human.stdout).toMatch(/out-unknown\s+unknown/)
    expect(human.stdout).toMatch(/^before a retry, check the channel: botmesh show <key>/m)
    expect((await run('dlq', 'list', '--unknown', '--kind', 'inbox')).code).toBe(2)
  })

  it('show: the whole record and why it is not running now', async () => {
    const why = async (id: string) => jsonOf<{ why: string; record: Record<string, unknown> }[]>(await run('show', id, '--json'))[0]!
    const ids = ['in-pending', 'in-processing', 'part:1#2', 'out-dead-1', 'in-dead-1', 'out-unknown', 'out-sent', 'in-failed'] as const
    const said = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await why(id)).why] as const))) as Record<
      (typeof ids)[number],
      string
    >
    // Seeded to back off an hour; a loaded machine may take minutes between the seed and this look.
    expect(said['in-pending']).toMatch(
      /^backing off until \S+ \(in (5\d|60)m \d+s\), attempt 3 \(limit unknown: no live instance reports it; .*\)\. Last error: the CRM timed out \(ETIMEDOUT\)\.$/,
    )
    expect(said['in-processing']).toMatch(/leased to bot-1, token 7, expires in (\d+m )?\d+s/)
    expect(said['part:1#2']).toMatch(/^waiting behind part part:1 \(failed\)/)
    expect(said['out-dead-1']).toMatch(
      /^dead since \S+ after 6 provider call\(s\): unsupported content \(UNSUPPORTED_CONTENT\); botmesh retry out-dead-1/,
    )
    expect(said['in-dead-1']).toMatch(/dead since .* after 5 run\(s\): the CRM refused the lead \(CRM_REFUSED\); botmesh replay in-dead-1/)
    // What is known of an unknown send: the provider was called, the channel may have it, and how to check before a retry.
    expect(said['out-unknown']).toMatch(
      /^unknown since \S+: a bot called the provider with it \(call \d+\) and died before recording the result/,
    )
    expect(said['out-unknown']).toMatch(/check the channel: look in chat chat-\w for this message, sent between \S+ and \S+\./)
    expect(said['out-unknown']).toMatch(/botmesh retry out-unknown sends it again; if it is, botmesh discard out-unknown/)
    const unknown = await run('show', 'out-unknown')
    expect(unknown.stdout).toMatch(/^attempts\s+\d+ \(the last one's outcome unknown\)$/m)
    expect(said['out-sent']).toMatch(/^sent at .* as provider message mock-1/)
    expect(said['in-failed']).toMatch(/^due since .* attempt 4 \(limit unknown.*\): the next sweep of a running bot/)
    const shown = await why('out-pending')
    expect(shown.record.payload).toEqual({ text: 'reply out-pending' })
    const budget = jsonOf<{ why: string }[]>(await run('outbox', 'show', 'out-pending', '--retries', '2', '--json'))[0]!
    expect(budget.why).toContain('provider call 2 of 3')
    const human = await run('inbox', 'show', 'in-dead-2')
    expect(human.stdout).toMatch(/^state\s+dead$/m)
    expect(human.stdout).toMatch(/^event: \{"id":"in-dead-2"/m)
    expect(human.stdout).toMatch(/^why: dead since/m)
  })

  it('leases and instances', async () => {
    const { leases } = jsonOf<{ leases: { kind: string; id: string; owner: string; token: number; expiresInMs: number }[] }>(
      await run('leases', '--json'),
    )
    expect(leases.map((l) => [l.kind, l.id, l.owner, l.token])).toEqual([
      ['outbox', 'out-sending', 'bot-1', 3],
      ['inbox', 'in-processing', 'bot-1', 7],
    ])
    const { instances } = jsonOf<{ instances: { instanceId: string; pid: number; live: boolean }[] }>(await run('instances', '--json'))
    expect(instances).toMatchObject([{ instanceId: 'host-1/support/default', pid: 4242, live: true }])
    const table = await run('leases')
    expect(table.stdout).toMatch(/inbox\s+in-processing\s+chat-a\s+bot-1\s+7\s+\d+m \d+s/)
    // The counts come from the heartbeat, which trails the bot: the table says so, with the beat's period.
    const beats = await run('instances')
    expect(beats.stdout).toMatch(
      /^inbound, sends and dead are each bot's counters at its last beat \(one every 5s\): what it did since is not counted yet$/m,
    )
  })
})

describe.concurrent('choosing a scope', () => {
  it('several scopes and none chosen: lists them, exit 2', async () => {
    const result = await botmesh(['dlq', 'list', '--backend', twoScopes])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `the backend holds 2 scopes; choose one with --scope <id> (or --bot <botId>): acme/prod/sales/default, ${SEED_SCOPE} (SCOPE_REQUIRED)`,
    )
    expect(result.stdout).toBe('')
  })

  it('--scope and --bot choose', async () => {
    const byScope = jsonOf<Page>(await botmesh(['dlq', 'list', '--scope', 'acme/prod/sales/default', '--json', '--backend', twoScopes]))
    const byBot = jsonOf<Page>(await botmesh(['dlq', 'list', '--bot', 'sales', '--json', '--backend', twoScopes]))
    expect(byScope.records).toHaveLength(5)
    expect(byBot).toEqual(byScope)
  })

  it('an unknown scope or bot names what there is, exit 2', async () => {
    const scope = await botmesh(['stats', '--scope', 'acme/prod/nobody/default', '--backend', twoScopes])
    expect(scope.code).toBe(2)
    expect(scope.stderr).toContain(
      'no scope "acme/prod/nobody/default" in this backend; it holds acme/prod/sales/default, acme/prod/support/default (SCOPE_UNKNOWN)',
    )
    const bot = await botmesh(['stats', '--bot', 'nobody', '--backend', twoScopes])
    expect(bot.stderr).toContain('no scope of the bot "nobody"')
  })
})

describe.concurrent('bad input touches nothing', () => {
  it('an id or key that does not exist', async () => {
    for (const args of [
      ['show', 'no-such-id'],
      ['inbox', 'show', 'out-dead-1'],
      ['retry', 'no-such-key', '--yes'],
    ]) {
      const result = await run(...args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(/no (inbox or outbox|inbox|outbox) record ".*" \(RECORD_NOT_FOUND\)/)
    }
  })

  it("an application's own SQLite database is not a journal: every command refuses it naming its tables, and creates nothing in it", async () => {
    const dir = tempDir()
    const file = join(dir, 'app.db')
    const app = new Database(file)
    app.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada')")
    app.close()
    const tablesOf = () => {
      const db = new Database(file, { readonly: true })
      try {
        return (db.prepare(`SELECT name FROM sqlite_master ORDER BY name`).all() as { name: string }[]).map((row) => row.name)
      } finally {
        db.close()
      }
    }
    const commands = [
      ['stats'],
      ['dlq', 'list'],
      ['inbox', 'list'],
      ['show', 'x'],
      ['scopes'],
      ['export'],
      ['leases'],
      ['replay', 'x', '--yes'],
    ]
    for (const args of commands) {
      const result = await botmesh([...args, '--backend', `sqlite:${file}`])
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toContain(`${file} holds no botmesh journal (no "durable" table; its tables: customers)`)
      expect(result.stderr, args.join(' ')).toContain('(JOURNAL_MISSING)')
    }
    expect(tablesOf()).toEqual(['customers'])
    expect(readdirSync(dir)).toEqual(['app.db'])
  })

  it('a mistyped file path creates no file, for every kind of file journal', async () => {
    const dir = tempDir()
    for (const url of [
      `sqlite:${join(dir, 'typo.db')}`,
      `file:${join(dir, 'typo.json')}`,
      `events:${join(dir, 'typo-events.json')}`,
      `events+shared:${join(dir, 'shared.json')}`,
    ]) {
      for (const args of [['stats'], ['dlq', 'list'], ['verify']]) {
        const result = await botmesh([...args, '--backend', url])
        expect(result.code, `${args.join(' ')} ${url}`).not.toBe(0)
        expect(result.stdout + result.stderr, `${args.join(' ')} ${url}`).toMatch(/does not exist/)
      }
    }
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
  })

  it('a missing journal file names the journal files beside it, nearest first', async () => {
    const dir = tempDir()
    await seedJournal(`sqlite:${join(dir, 'bot.db')}`)
    writeFileSync(join(dir, 'notes.txt'), 'not a journal')
    const result = await botmesh(['stats', '--backend', `sqlite:${join(dir, 'bots.db')}`])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`${join(dir, 'bots.db')} does not exist (files with .db in ${dir}, nearest first: "bot.db")`)
    expect(existsSync(join(dir, 'bots.db'))).toBe(false)
  })

  it('a directory, a 0-byte file, another format, a missing file', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'adir'))
    writeFileSync(join(dir, 'empty.db'), '')
    writeFileSync(join(dir, 'text.db'), 'hello, not a database')
    const cases: [string, RegExp][] = [
      ['adir', /adir is a directory, not a journal file \(JOURNAL_MISSING\)/],
      ['empty.db', /empty\.db is empty \(0 bytes\), not a journal/],
      // There, but not a SQLite database: damaged or the wrong file, never "missing".
      ['text.db', /text\.db: is not a SQLite database; restore it from a backup or move it aside \(JOURNAL_CORRUPT\)/],
      ['missing.db', /missing\.db does not exist/],
    ]
    for (const [name, message] of cases) {
      const result = await botmesh(['dlq', 'list', '--backend', `sqlite:${join(dir, name)}`])
      expect(result.code, name).toBe(2)
      expect(result.stderr.trim().split('\n'), name).toHaveLength(1)
      expect(result.stderr, name).toMatch(message)
    }
    expect(statSync(join(dir, 'empty.db')).size).toBe(0)
    expect(readFileSync(join(dir, 'text.db'), 'utf8')).toBe('hello, not a database')
  })

  it('a path ending in .db is a SQLite backend', async () => {
    const result = await botmesh(['scopes', '--json', '--backend', url.slice('sqlite:'.length)])
    expect(result.code).toBe(0)
    expect(jsonOf<{ scopes: unknown[] }>(result).scopes).toHaveLength(1)
  })
})
