/**
 * The CLI on an encrypted journal, run as the built binary: without keys it lists and shows
 * metadata and prints content as "(encrypted, key k1)" with the key a record needs; with --keys or
 * BOTMESH_ENCRYPTION_KEYS it shows the content; a purge never deletes what the keys given do not
 * open; export and import carry the sealed form; `rekey` rewrites a journal under the current key
 * (dry run first, nothing lost, a second run finds nothing to do); no key reaches any output.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { TEXT } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { botmesh, jsonOf, useTempDirs, type CliRun } from './helpers.js'

const tempDir = useTempDirs()
const K1 = randomBytes(32).toString('base64')
const K2 = randomBytes(32).toString('base64')
const SCOPE = 'default/default/vault/default'
const MESSAGES = 30

/** A SQLite journal a bot with k1 wrote: MESSAGES planted texts and their echoed replies. */
async function sealedJournal(dir: string): Promise<{ url: string; planted: string[] }> {
  const file = join(dir, 'bot.db')
  const store = new SQLiteStore({ file })
  const provider = new MockProvider()
  const bot = new Bot({
    provider,
    store,
    botId: 'vault',
    durability: { backend: store.durability(), instanceId: 'vault-1', pollMs: 20, encryption: { keys: { k1: K1 }, current: 'k1' } },
  })
  bot.when(TEXT, (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  await bot.start()
  const planted = Array.from({ length: MESSAGES }, (_, n) => `planted-${randomBytes(5).toString('hex')}-${n}`)
  for (const [n, text] of planted.entries()) await provider.receive({ id: `m${n}`, chatId: `c${n % 3}`, text })
  await bot.idle()
  await bot.stop()
  return { url: `sqlite:${file}`, planted }
}

function keyFile(dir: string, name: string, keys: Record<string, string>, current: string): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify({ keys, current }), { mode: 0o600 })
  return path
}

/** No key in any form in what a run printed. */
function expectNoKey(...runs: CliRun[]): void {
  for (const run of runs)
    for (const key of [K1, K2]) {
      expect(run.stdout + run.stderr).not.toContain(key)
      expect(run.stdout + run.stderr).not.toContain(Buffer.from(key, 'base64').toString('hex'))
    }
}

describe('botmesh on an encrypted journal', () => {
  it('shows metadata without keys and the content with them, from --keys or BOTMESH_ENCRYPTION_KEYS', async () => {
    const dir = tempDir()
    const { url, planted } = await sealedJournal(dir)
    const id = inboxRecordId('mock', 'c1', 'm1')
    const k1 = keyFile(dir, 'k1.json', { k1: K1 }, 'k1')

    const bare = await botmesh(['--backend', url, 'show', id])
    expect(bare.code, bare.stderr).toBe(0)
    expect(bare.stdout).toContain('event: (encrypted, key k1)')
    expect(bare.stdout).toContain(
      'Its content is sealed under encryption key "k1": give that key (--keys <file> or BOTMESH_ENCRYPTION_KEYS)',
    )
    expect(bare.stdout).not.toContain(planted[1])
    const json = await botmesh(['--backend', url, 'show', id, '--json'])
    expect(jsonOf<{ sealedUnder?: string; record: { event: string } }[]>(json)[0]).toMatchObject({ sealedUnder: 'k1' })
    const list = await botmesh(['--backend', url, 'inbox', 'list', '--json'])
    expect(jsonOf<{ records: unknown[] }>(list).records).toHaveLength(MESSAGES)

    const flag = await botmesh(['--backend', url, '--keys', k1, 'show', id])
    const env = await botmesh(['--backend', url, 'show', `${id}:1`, '--json'], {
      env: { BOTMESH_ENCRYPTION_KEYS: readFileSync(k1, 'utf8') },
    })
    expect(flag.stdout).toContain(`"text":"${planted[1]}"`)
    expect(flag.stdout).not.toContain('encrypted')
    const shown = jsonOf<{ sealedUnder?: string; record: { payload: unknown } }[]>(env)[0]!
    expect(shown.record.payload).toBe(`echo: ${planted[1]}`)
    expect(shown.sealedUnder).toBeUndefined()
    expectNoKey(bare, json, list, flag, env)
  })

  it('refuses a bad key file or variable without quoting it', async () => {
    const dir = tempDir()
    const { url } = await sealedJournal(dir)
    const notJson = join(dir, 'bad.json')
    writeFileSync(notJson, `k1=${K1}`, { mode: 0o600 })
    const short = keyFile(dir, 'short.json', { k1: K1.slice(0, 20) }, 'k1')
    const runs = [
      await botmesh(['--backend', url, '--keys', notJson, 'stats']),
      await botmesh(['--backend', url, '--keys', short, 'stats']),
      await botmesh(['--backend', url, 'stats'], { env: { BOTMESH_ENCRYPTION_KEYS: `{"keys":{"k1":"${K1}"},"current":"k2"}` } }),
      await botmesh(['--backend', url, '--keys', join(dir, 'missing.json'), 'stats']),
    ]
    expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2])
    expect(runs[0]!.stderr).toContain(`--keys ${notJson} is not JSON; expected { "keys"`)
    expect(runs[1]!.stderr).toContain(`--keys ${short}.keys.k1 must be 32 bytes (AES-256); it has 15`)
    expect(runs[2]!.stderr).toContain('BOTMESH_ENCRYPTION_KEYS.current must name one of the keys (k1); got "k2"')
    expect(runs[3]!.stderr).toContain('cannot read')
    expectNoKey(...runs)
  })

  it('never purges what the keys given do not open', async () => {
    const dir = tempDir()
    const { url } = await sealedJournal(dir)
    const kept = await botmesh(['--backend', url, 'purge', '--older-than', '0s', '--yes', '--json'])
    expect(kept.code, kept.stderr).toBe(0)
    expect(jsonOf(kept)).toMatchObject({ total: 0, sealed: { count: MESSAGES * 2, keys: ['k1'] } })
    const wrong = keyFile(dir, 'wrong.json', { k1: K2 }, 'k1')
    const keptWrong = await botmesh(['--backend', url, '--keys', wrong, 'purge', '--older-than', '0s', '--yes', '--json'])
    expect(jsonOf(keptWrong)).toMatchObject({ total: 0, sealed: { count: MESSAGES * 2 } })
    const k1 = keyFile(dir, 'k1.json', { k1: K1 }, 'k1')
    const purged = await botmesh(['--backend', url, '--keys', k1, 'purge', '--older-than', '0s', '--yes', '--json'])
    expect(jsonOf(purged)).toMatchObject({ total: MESSAGES * 2, sealed: { count: 0 } })
    const deleted = jsonOf<{ deleted: { deleted: number }[] }>(purged).deleted.reduce((n, lane) => n + lane.deleted, 0)
    expect(deleted).toBe(MESSAGES * 2)
    expectNoKey(kept, keptWrong, purged)
  })

  it('exports and imports the sealed form', async () => {
    const dir = tempDir()
    const { url, planted } = await sealedJournal(dir)
    const k1 = keyFile(dir, 'k1.json', { k1: K1 }, 'k1')
    const exported = await botmesh(['--backend', url, '--keys', k1, 'export'])
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stdout).toContain('$sealed:2:k1:')
    expect(planted.filter((text) => exported.stdout.includes(text))).toEqual([])
    const copy = `sqlite:${join(dir, 'copy.db')}`
    const imported = await botmesh(['--backend', copy, 'import', '-'], { input: exported.stdout })
    expect(imported.code, imported.stderr).toBe(0)
    const shown = await botmesh(['--backend', copy, '--keys', k1, 'show', inboxRecordId('mock', 'c2', 'm2'), '--json'])
    expect(jsonOf<{ record: { event: { text: string } } }[]>(shown)[0]!.record.event.text).toBe(planted[2])
    expectNoKey(exported, imported, shown)
  })

  it('rekey rewrites every record under the current key, with a dry run first, and loses nothing', async () => {
    const dir = tempDir()
    const { url, planted } = await sealedJournal(dir)
    const both = keyFile(dir, 'both.json', { k1: K1, k2: K2 }, 'k2')
    const onlyK1 = keyFile(dir, 'k1.json', { k1: K1 }, 'k1')
    const before = await botmesh(['--backend', url, 'export'])

    const noKeys = await botmesh(['--backend', url, 'rekey', '--yes'])
    expect(noKeys.code).toBe(2)
    expect(noKeys.stderr).toContain('rekey needs the keys: --keys <file> or BOTMESH_ENCRYPTION_KEYS')
    const dry = await botmesh(['--backend', url, '--keys', both, 'rekey', '--dry-run', '--json'])
    expect(jsonOf(dry)).toMatchObject({ dryRun: true, scanned: MESSAGES * 2, rewritten: MESSAGES * 2, from: { k1: MESSAGES * 2 } })
    const records = (run: CliRun) => run.stdout.split('\n').slice(1)
    expect(records(await botmesh(['--backend', url, 'export'])), 'a dry run changes nothing').toEqual(records(before))
    const refused = await botmesh(['--backend', url, '--keys', both, 'rekey'])
    expect(refused.code).toBe(2)

    const done = await botmesh(['--backend', url, '--keys', both, 'rekey', '--yes', '--json'])
    expect(done.code, done.stderr).toBe(0)
    expect(jsonOf(done)).toMatchObject({
      dryRun: false,
      current: 'k2',
      scanned: MESSAGES * 2,
      rewritten: MESSAGES * 2,
      unchanged: 0,
      conflicts: 0,
      scopes: [SCOPE],
    })
    const again = await botmesh(['--backend', url, '--keys', both, 'rekey', '--yes', '--json'])
    expect(jsonOf(again)).toMatchObject({ rewritten: 0, unchanged: MESSAGES * 2 })

    const after = await botmesh(['--backend', url, 'export'])
    expect(after.stdout).not.toContain('$sealed:2:k1:')
    const onlyOld = await botmesh(['--backend', url, '--keys', onlyK1, 'show', inboxRecordId('mock', 'c0', 'm0')])
    expect(onlyOld.stdout).toContain('event: (encrypted, key k2)')
    for (const [n, text] of planted.entries()) {
      const shown = await botmesh(['--backend', url, '--keys', both, 'show', inboxRecordId('mock', `c${n % 3}`, `m${n}`), '--json'])
      const [record] = jsonOf<{ record: { event: { text: string }; state: string }; version: number }[]>(shown)
      expect(record!.record).toMatchObject({ event: { text }, state: 'done' })
      if (n >= 3) break
    }
    expectNoKey(noKeys, dry, refused, done, again, after, onlyOld)
  })
})
