/**
 * Issue 45, item 7: a fold that runs while appends arrive leaves the log as long as they made it.
 * Before, an append during a fold started nothing (one fold at a time) and nothing checked the
 * log once the fold ended, so a bot's 8 messages with `compactEvery: 5` left 25 lines in the log
 * until the next append. A log due a fold after a fold now starts one.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { FileDurability, nodeFileSystem } from '../../src/backends/file/index.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { fast, useBots } from '../core/helpers.js'
import { inboxInsert } from '../../test-utils/kv-ops.js'
import { FailingFs } from './file-fs-wrappers.js'

const dirs: string[] = []
async function journalPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'botmesh-fold-again-'))
  dirs.push(dir)
  return join(dir, 'durable.json')
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

const bots = useBots()

/** The log's lines on disk (0 without a log). */
async function logLines(path: string): Promise<number> {
  const text = await readFile(`${path}.log`, 'utf8').catch(() => '')
  return text.split('\n').filter(Boolean).length
}

describe('a log due a fold after a fold', () => {
  it('starts the next fold itself, with no append to start it', async () => {
    const path = await journalPath()
    const fs = new FailingFs(nodeFileSystem)
    let release!: () => void
    const held = fs.holdNext('sync', '.tmp-', new Promise<void>((resolve) => (release = resolve)))
    const durability = await FileDurability.open(path, { appendLog: { compactEvery: 5 }, fs })
    for (let n = 0; n < 5; n++) await durability.kv.write([inboxInsert(`m${n}`)])
    await held // the fold the 5th write started holds at its snapshot's fsync
    // Six appends while it runs: more than compactEvery once it ended.
    for (let n = 5; n < 11; n++) await durability.kv.write([inboxInsert(`m${n}`)])
    release()
    await durability.kv.flush() // waits for the fold the first one started, too
    const { logRecords, logSeq } = durability.stats()
    assert.ok(logRecords < 5, `the log holds ${logRecords} records after the folds (logSeq ${logSeq})`)
    assert.equal(logSeq, 11, 'the second fold took every record appended during the first')
    assert.equal(await logLines(path), logRecords)
    await durability.close()
    const reopened = await FileDurability.open(path, { appendLog: true })
    assert.equal((await reopened.kv.list('inbox', { state: 'pending', limit: 100 })).length, 11)
    await reopened.close()
  })

  it("a bot's 8 messages with compactEvery: 5 leave fewer than 5 lines in the log once it is idle", async () => {
    const path = await journalPath()
    const backend = await FileDurability.open(path, { appendLog: { compactEvery: 5 } })
    const t = await bots.start({
      durability: fast({ backend, pollMs: '1h' }),
      setup: (bot) => bot.when(TEXT, (ctx) => ctx.reply(`re: ${ctx.message.text}`)),
    })
    for (let n = 0; n < 8; n++) await t.provider.receive({ id: `m${n}`, chatId: 'c1', text: `${n}` })
    await t.bot.idle()
    // Stopped first: no heartbeat appends while the log is counted.
    await t.bot.stop()
    await backend.kv.flush()
    assert.equal(t.provider.sent.length, 8)
    const lines = await logLines(path)
    assert.ok(lines < 5, `the log holds ${lines} lines`)
    assert.equal(backend.stats().logRecords, lines)
    await backend.close()
  })
})
