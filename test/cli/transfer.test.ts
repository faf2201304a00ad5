/**
 * Export and import: NDJSON of every record with its state, keys, attempts and tokens; a journal
 * moved file → PostgreSQL → SQLite gives back the same records; import refuses to overwrite
 * unless told to, refuses a bad file before writing anything, and can put records into another scope.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PG_URL, dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'
import { SEED_SCOPE, seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const pgAvailable = await postgresAvailable()

/** The records of an export, as comparable lines (scope, kind, record), sorted. */
function recordsOf(ndjson: string): string[] {
  const lines = ndjson.trim().split('\n')
  expect(JSON.parse(lines[0]!)).toMatchObject({ botmesh: 'export', format: 1 })
  return lines
    .slice(1)
    .map((line) => {
      const { scope, kind, record } = JSON.parse(line) as { scope: string; kind: string; record: unknown }
      return JSON.stringify([scope, kind, record])
    })
    .sort()
}

describe.runIf(pgAvailable)('file → PostgreSQL → SQLite', () => {
  const prefix = randomTablePrefix()
  afterAll(() => dropTablePrefix(prefix))

  it('gives back the same records', async () => {
    const dir = tempDir()
    const file = `file:${join(dir, 'durable.json')}`
    await seedJournal(file, [SEED_SCOPE, 'acme/prod/sales/default'])
    const postgres = new URL(PG_URL)
    postgres.searchParams.set('tablePrefix', prefix)
    const sqlite = `sqlite:${join(dir, 'moved.db')}`

    const first = join(dir, 'from-file.ndjson')
    expect((await botmesh(['export', '--out', first, '--backend', file])).code).toBe(0)
    const imported = await botmesh(['import', first, '--json', '--backend', postgres.toString()])
    expect(imported.code, imported.stderr).toBe(0)
    expect(jsonOf(imported)).toMatchObject({
      records: 34,
      inserted: 34,
      overwritten: 0,
      conflicts: 0,
      scopes: ['acme/prod/sales/default', SEED_SCOPE],
    })
    const second = await botmesh(['export', '--backend', postgres.toString()])
    expect(second.code).toBe(0)
    const piped = await botmesh(['import', '-', '--backend', sqlite], { input: second.stdout })
    expect(piped.code, piped.stderr).toBe(0)
    const third = await botmesh(['export', '--backend', sqlite])

    const original = recordsOf(await readFile(first, 'utf8'))
    expect(original).toHaveLength(34)
    expect(recordsOf(second.stdout)).toEqual(original)
    expect(recordsOf(third.stdout)).toEqual(original)
  })
})

describe.concurrent('import', () => {
  it('refuses to overwrite existing records unless --overwrite, and says which', async () => {
    const dir = tempDir()
    const url = `sqlite:${join(dir, 'bot.db')}`
    await seedJournal(url)
    const backup = join(dir, 'backup.ndjson')
    expect((await botmesh(['export', '--out', backup, '--backend', url])).code).toBe(0)
    expect((await botmesh(['replay', 'in-dead-1', '--yes', '--backend', url])).code).toBe(0)
    const refused = await botmesh(['import', backup, '--backend', url])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(
      /17 record\(s\) of the import already exist in the target \(acme\/prod\/support\/default inbox "in-pending", .*\); nothing was imported: pass --overwrite to replace them \(IMPORT_CONFLICT\)/,
    )
    const shown = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', 'in-dead-1', '--json', '--backend', url]))
    expect(shown[0]!.record.state).toBe('pending')
    const overwritten = await botmesh(['import', backup, '--overwrite', '--json', '--backend', url])
    expect(jsonOf(overwritten)).toMatchObject({ records: 17, existing: 17, overwritten: 17, inserted: 0 })
    const restored = jsonOf<{ record: { state: string } }[]>(await botmesh(['show', 'in-dead-1', '--json', '--backend', url]))
    expect(restored[0]!.record.state).toBe('dead')
  })

  it('puts every record into --scope, and --dry-run writes nothing', async () => {
    const dir = tempDir()
    const source = `sqlite:${join(dir, 'a.db')}`
    await seedJournal(source)
    const backup = join(dir, 'backup.ndjson')
    await botmesh(['export', '--out', backup, '--backend', source])
    const target = `sqlite:${join(dir, 'b.db')}`
    const dry = await botmesh(['import', backup, '--scope', 'acme/staging/support/default', '--dry-run', '--json', '--backend', source])
    expect(jsonOf(dry)).toMatchObject({ dryRun: true, records: 17, existing: 0, scopes: ['acme/staging/support/default'] })
    expect((await botmesh(['import', backup, '--scope', 'acme/staging/support/default', '--backend', target])).code).toBe(0)
    const scopes = jsonOf<{ scopes: { scope: string; inbox: number }[] }>(await botmesh(['scopes', '--json', '--backend', target]))
    expect(scopes.scopes).toMatchObject([{ scope: 'acme/staging/support/default', inbox: 8 }])
  })

  it('refuses a bad file before writing anything: the line and what is wrong', async () => {
    const dir = tempDir()
    const url = `sqlite:${join(dir, 'bot.db')}`
    const header = JSON.stringify({ botmesh: 'export', format: 1, backend: 'sqlite', exportedAt: 1, scopes: [] })
    const good = JSON.stringify({
      scope: 's/s/s/s',
      kind: 'inbox',
      version: 1,
      record: { id: 'a', state: 'done', attempts: 1, createdAt: 1, updatedAt: 1, fencingToken: 0, chatId: 'c' },
    })
    const cases: [string, RegExp][] = [
      ['', /line 1 of the import the file is empty/],
      ['{"not":"an export"}\n', /line 1 of the import is not the header of a botmesh export/],
      [`${header}\n${good}\nnot json\n`, /line 3 of the import is not JSON; nothing was imported \(IMPORT_INVALID\)/],
      [`${header}\n${good.replace('"inbox"', '"sideways"')}\n`, /line 2 of the import kind must be "inbox" or "outbox"/],
      [`${header}\n${good.replace('"done"', '"lost"')}\n`, /line 2 of the import state "lost" is not an inbox state/],
    ]
    for (const [content, message] of cases) {
      const path = join(dir, 'bad.ndjson')
      await writeFile(path, content)
      const result = await botmesh(['import', path, '--backend', url])
      expect(result.code, content).toBe(2)
      expect(result.stderr, content).toMatch(message)
    }
    const missing = await botmesh(['import', join(dir, 'nope.ndjson'), '--backend', url])
    expect(missing.code).toBe(2)
    expect(existsSync(join(dir, 'bot.db'))).toBe(false)
  })
})

describe.concurrent('export', () => {
  it('writes NDJSON to stdout (the summary on stderr) or to a new --out file, never over one', async () => {
    const dir = tempDir()
    const url = `sqlite:${join(dir, 'bot.db')}`
    await seedJournal(url, [SEED_SCOPE, 'acme/prod/sales/default'])
    const all = await botmesh(['export', '--backend', url])
    expect(all.code).toBe(0)
    expect(all.stdout.trim().split('\n')).toHaveLength(35)
    expect(all.stderr).toContain('exported 34 record(s) (16 inbox, 18 outbox) of 2 scope(s) to stdout')
    const one = await botmesh(['export', '--bot', 'sales', '--backend', url])
    expect(recordsOf(one.stdout).every((line) => line.startsWith('["acme/prod/sales/default"'))).toBe(true)
    const out = join(dir, 'out.ndjson')
    const written = await botmesh(['export', '--out', out, '--json', '--backend', url])
    expect(jsonOf(written)).toMatchObject({ records: 34, byKind: { inbox: 16, outbox: 18 }, out })
    const again = await botmesh(['export', '--out', out, '--backend', url])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('exists; give a new file for --out')
    const line = JSON.parse(all.stdout.split('\n')[1]!) as { record: Record<string, unknown> }
    expect(Object.keys(line.record)).toEqual(expect.arrayContaining(['state', 'attempts', 'fencingToken', 'lease', 'lastError']))
  })
})
