/**
 * Issue 41, item 6, in the CLI: sealed content is bound to its scope (format 2). `rekey` rewrites a
 * journal sealed in format 1 into format 2; `import --scope` seals each moved record again under
 * its new scope with the keys given, and refuses (nothing imported) without them.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SQLiteStore } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { inboxRecordId } from '../../src/core/durability/outbox/keys.js'
import { recordKey, type InboxRecord, type OutboxRecord } from '../../src/core/durability/journal/records.js'
import { KeyRing } from '../../src/core/encryption/key-ring.js'
import { RecordSealer, SEALED_FIELDS } from '../../src/core/encryption/record-sealer.js'
import { TEXT } from '../../src/core/index.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { sealedInFormat1 } from '../../test-utils/sealed-format-1.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const K1 = randomBytes(32)
const SCOPE = 'default/default/vault/default'
const OTHER = 'acme/prod/other/default'
const MESSAGES = 4

/** A SQLite journal a bot with k1 wrote: MESSAGES texts and their replies, sealed in format 2. */
async function sealedJournal(dir: string): Promise<{ file: string; planted: string[] }> {
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
  for (const [n, text] of planted.entries()) await provider.receive({ id: `m${n}`, chatId: `c${n}`, text })
  await bot.idle()
  await bot.stop()
  return { file, planted }
}

/** Every record's content sealed again as botmesh sealed it before format 2. */
async function downgradeToFormat1(file: string): Promise<void> {
  const store = new SQLiteStore({ file })
  const backend = store.durability()
  await backend.start()
  const journal = backend.journal(SCOPE)
  const sealer = new RecordSealer(KeyRing.from({ keys: { k1: K1 }, current: 'k1' }))
  for (const [kind, state] of [
    ['inbox', 'done'],
    ['outbox', 'sent'],
  ] as const) {
    for (const { record, version } of await journal.list(kind, { state, limit: 100 })) {
      const clear = sealer.open(SCOPE, kind, record).record as unknown as Record<string, unknown>
      const key = recordKey(kind, record as InboxRecord & OutboxRecord)
      const old = { ...clear }
      for (const field of SEALED_FIELDS[kind]!)
        if (clear[field] !== null) old[field] = sealedInFormat1(K1, 'k1', JSON.stringify(clear[field]), `${kind}\0${key}\0${field}`)
      const [result] = await journal.write('operator.import', [{ kind, record: old as never, expectVersion: version }])
      expect(result!.ok).toBe(true)
    }
  }
  await backend.stop()
}

function keyFile(dir: string): string {
  const path = join(dir, 'k1.json')
  writeFileSync(path, JSON.stringify({ keys: { k1: K1.toString('base64') }, current: 'k1' }), { mode: 0o600 })
  return path
}

const textOf = (run: Awaited<ReturnType<typeof botmesh>>) => jsonOf<{ record: InboxRecord | OutboxRecord }[]>(run)[0]!.record

describe('the sealed format in the CLI', () => {
  it('rekey rewrites a journal sealed in format 1 into format 2, under the same key', async () => {
    const dir = tempDir()
    const { file, planted } = await sealedJournal(dir)
    await downgradeToFormat1(file)
    const url = `sqlite:${file}`
    const keys = keyFile(dir)
    const before = await botmesh(['--backend', url, 'export'])
    expect(before.stdout).toContain('$sealed:1:k1:')
    expect(before.stdout).not.toContain('$sealed:2:')

    const dry = await botmesh(['--backend', url, '--keys', keys, 'rekey', '--dry-run', '--json'])
    expect(jsonOf(dry)).toMatchObject({ rewritten: MESSAGES * 2, from: { 'k1, format 1': MESSAGES * 2 }, altered: 0 })
    const done = await botmesh(['--backend', url, '--keys', keys, 'rekey', '--yes', '--json'])
    expect(done.code, done.stderr).toBe(0)
    expect(jsonOf(done)).toMatchObject({ rewritten: MESSAGES * 2, unchanged: 0, conflicts: 0 })

    const after = await botmesh(['--backend', url, 'export'])
    expect(after.stdout).not.toContain('$sealed:1:')
    expect(after.stdout).toContain('$sealed:2:k1:')
    const shown = await botmesh(['--backend', url, '--keys', keys, 'show', inboxRecordId('mock', 'c1', 'm1'), '--json'])
    expect((textOf(shown) as InboxRecord).event).toMatchObject({ text: planted[1] })
    const again = await botmesh(['--backend', url, '--keys', keys, 'rekey', '--yes', '--json'])
    expect(jsonOf(again)).toMatchObject({ rewritten: 0, unchanged: MESSAGES * 2 })
  })

  it('import --scope seals moved records again under their new scope, and refuses without the keys', async () => {
    const dir = tempDir()
    const { file, planted } = await sealedJournal(dir)
    const keys = keyFile(dir)
    const exported = await botmesh(['--backend', `sqlite:${file}`, 'export'])
    expect(exported.code, exported.stderr).toBe(0)
    const copy = `sqlite:${join(dir, 'copy.db')}`

    const refused = await botmesh(['--backend', copy, '--scope', OTHER, 'import', '-'], { input: exported.stdout })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`moves from scope "${SCOPE}" to "${OTHER}" with sealed content`)
    expect(refused.stderr).toContain('nothing was imported')

    const imported = await botmesh(['--backend', copy, '--scope', OTHER, '--keys', keys, 'import', '-'], { input: exported.stdout })
    expect(imported.code, imported.stderr).toBe(0)
    const id = inboxRecordId('mock', 'c2', 'm2')
    const shown = await botmesh(['--backend', copy, '--scope', OTHER, '--keys', keys, 'show', id, '--json'])
    expect(shown.code, shown.stderr).toBe(0)
    expect((textOf(shown) as InboxRecord).event).toMatchObject({ text: planted[2] })
    const moved = await botmesh(['--backend', copy, '--scope', OTHER, 'export'])
    expect(
      planted.filter((text) => moved.stdout.includes(text)),
      'still sealed',
    ).toEqual([])
  })
})
