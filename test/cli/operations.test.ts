/**
 * The commands that change records, on SQLite: replay, retry and discard by id and in bulk (filters,
 * --limit, --rate), purge; --dry-run, --yes, --reason kept on the record with who and when; the
 * refusal off a terminal and the prompt on one (none for one named record re-queued); and a replay
 * and a retry picked up by a bot that runs meanwhile in another process on the same file.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SQLiteDurability } from '../../src/backends/sqlite/index.js'
import { Bot } from '../../src/core/bot/bot.js'
import { TEXT } from '../../src/core/bot/matchers.js'
import { UnsupportedContentError } from '../../src/core/provider/provider-errors.js'
import { MemoryStore } from '../../src/core/store/store.js'
import { MockProvider } from '../../src/testing/mock-provider.js'
import { recordId } from '../../test-utils/record-id.js'
import { waitFor } from '../../test-utils/wait.js'
import { seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, botmeshOnTerminal, COLOUR, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

/** A freshly seeded journal, and the CLI bound to it. */
async function seeded(): Promise<(...args: string[]) => ReturnType<typeof botmesh>> {
  const url = `sqlite:${join(tempDir(), 'bot.db')}`
  await seedJournal(url)
  return (...args) => botmesh([...args, '--backend', url])
}

type Shown = { record: { state: string; attempts: number; audit?: { action: string; by: string; at: number; reason?: string }[] } }[]
type Outcome = {
  action: string
  dryRun: boolean
  matched: number
  attempted: number
  succeeded: number
  failed: number
  items: { id: string; ok: boolean; changed?: string[]; error?: { code: string } }[]
  reason: string | null
}

const stateOf = async (cli: Awaited<ReturnType<typeof seeded>>, id: string) => jsonOf<Shown>(await cli('show', id, '--json'))[0]!.record

describe.concurrent('replay, retry, discard by id', () => {
  it('replay re-queues a dead inbound with a fresh budget and keeps who, when and why', async () => {
    const cli = await seeded()
    const result = await cli('replay', 'in-dead-1', '--yes', '--reason', 'CRM fixed', '--json')
    expect(result.code).toBe(0)
    expect(jsonOf<Outcome>(result)).toMatchObject({
      action: 'replay',
      dryRun: false,
      attempted: 1,
      succeeded: 1,
      failed: 0,
      reason: 'CRM fixed',
      items: [{ id: 'in-dead-1', ok: true }],
    })
    const record = await stateOf(cli, 'in-dead-1')
    expect(record).toMatchObject({ state: 'pending', attempts: 0 })
    expect(record.audit).toEqual([{ action: 'replay', by: expect.stringMatching(/@/), at: expect.any(Number), reason: 'CRM fixed' }])
  })

  it('retry re-queues a dead send; discard forgets one', async () => {
    const cli = await seeded()
    expect((await cli('retry', 'out-dead-1', 'out-unknown', '--yes')).code).toBe(0)
    expect((await stateOf(cli, 'out-dead-1')).state).toBe('pending')
    expect((await stateOf(cli, 'out-unknown')).audit?.[0]?.action).toBe('retry')
    const discarded = await cli('discard', 'out-dead-2', '--yes')
    expect(discarded.code).toBe(0)
    expect(discarded.stdout).toContain('discard: 1 of 1 done')
    expect((await cli('show', 'out-dead-2')).code).toBe(2)
  })

  it('refuses a record in the wrong state, or missing, before changing any', async () => {
    const cli = await seeded()
    const wrong = await cli('replay', 'in-dead-1', 'in-pending', '--yes')
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('the inbox record "in-pending" is pending; expected dead or failed or done (INVALID_STATE)')
    const missing = await cli('retry', 'out-dead-1', 'ghost-1', 'ghost-2', '--yes')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no outbox record "ghost-1", "ghost-2" (RECORD_NOT_FOUND)')
    expect((await stateOf(cli, 'in-dead-1')).state).toBe('dead')
    expect((await stateOf(cli, 'out-dead-1')).state).toBe('dead')
  })

  it('a send in flight under a live lease is not discarded: exit 1, the reason per record', async () => {
    const cli = await seeded()
    const result = await cli('discard', 'out-sending', 'out-dead-1', '--yes', '--json')
    expect(result.code).toBe(1)
    const outcome = jsonOf<Outcome>(result)
    expect(outcome).toMatchObject({ attempted: 2, succeeded: 1, failed: 1 })
    expect(outcome.items[0]).toMatchObject({ id: 'out-sending', ok: false, error: { code: 'INVALID_STATE' } })
    expect(result.stderr).toContain('1 of 2 record(s) could not be changed')
  })
})

describe.concurrent('bulk forms', () => {
  it('replay --all-dead with filters touches only what matches', async () => {
    const cli = await seeded()
    const result = await cli('replay', '--all-dead', '--error', 'timed out', '--yes', '--json')
    expect(jsonOf<Outcome>(result)).toMatchObject({ matched: 1, succeeded: 1, items: [{ id: 'in-dead-2' }] })
    const chat = jsonOf<Outcome>(await cli('replay', '--all-dead', '--all-failed', '--chat', 'chat-c', '--yes', '--json'))
    expect(chat.items.map((item) => item.id).sort()).toEqual(['in-dead-3', 'in-failed'])
    expect((await stateOf(cli, 'in-dead-1')).state).toBe('dead')
  })

  it('retry --all-dead --all-unknown with --limit and --rate', async () => {
    const cli = await seeded()
    const limited = jsonOf<Outcome>(await cli('retry', '--all-dead', '--limit', '1', '--yes', '--json'))
    expect(limited).toMatchObject({ matched: 2, attempted: 1, succeeded: 1 })
    const paced = jsonOf<Outcome>(
      await cli('retry', '--all-dead', '--all-unknown', '--rate', '20', '--yes', '--reason', 'quota raised', '--json'),
    )
    expect(paced).toMatchObject({ matched: 2, attempted: 2, succeeded: 2, reason: 'quota raised' })
    const dead = jsonOf<{ records: unknown[] }>(await cli('dlq', 'list', '--kind', 'outbox', '--json'))
    expect(dead.records).toEqual([])
  })

  it('--dry-run lists what it would touch and changes nothing', async () => {
    const cli = await seeded()
    const result = await cli('retry', '--all-dead', '--dry-run')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('retry 2 outbox record(s):')
    expect(result.stdout).toMatch(/out-dead-1\s+dead/)
    expect(result.stdout).toContain('dry run: nothing was changed (2 record(s) match)')
    expect((await stateOf(cli, 'out-dead-1')).state).toBe('dead')
    const json = jsonOf<Outcome>(await cli('replay', '--all-dead', '--dry-run', '--json'))
    expect(json).toMatchObject({ dryRun: true, matched: 3, attempted: 0 })
  })

  it('nothing matching is not an error', async () => {
    const cli = await seeded()
    const result = await cli('replay', '--all-dead', '--chat', 'nobody', '--yes', '--json')
    expect(result.code).toBe(0)
    expect(jsonOf<Outcome>(result)).toMatchObject({ matched: 0, attempted: 0 })
    expect(result.stderr).toContain('nothing matches')
  })

  it('purge --older-than deletes settled records past the cut, and only with --yes', async () => {
    const cli = await seeded()
    const refused = await cli('purge', '--older-than', '1d')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('(CONFIRMATION_REQUIRED)')
    const purged = jsonOf<{ total: number; deleted: { kind: string; state: string; deleted: number }[] }>(
      await cli('purge', '--older-than', '1d', '--yes', '--json'),
    )
    expect(purged.total).toBe(2)
    expect(purged.deleted).toEqual([
      { kind: 'inbox', state: 'done', deleted: 1 },
      { kind: 'outbox', state: 'sent', deleted: 1 },
    ])
    expect((await cli('show', 'in-done-1')).code).toBe(2)
    expect((await stateOf(cli, 'in-done-2')).state).toBe('done')
    const dead = jsonOf<{ total: number }>(
      await cli('purge', '--older-than', '1m', '--kind', 'inbox', '--state', 'dead', '--dry-run', '--json'),
    )
    expect(dead.total).toBe(3)
  })

  it('purge --older-than 0s is valid and deletes every done and sent record', async () => {
    const cli = await seeded()
    const result = await cli('purge', '--older-than', '0s', '--yes', '--json')
    expect(result.stderr).toContain('purge 3 record(s)')
    expect(result.code).toBe(0)
    const purged = jsonOf<{ deleted: { kind: string; state: string; deleted: number }[] }>(result)
    expect(purged.deleted).toEqual([
      { kind: 'inbox', state: 'done', deleted: 2 },
      { kind: 'outbox', state: 'sent', deleted: 1 },
    ])
    const stats = jsonOf<{ inbox: { counts: Record<string, number> }; outbox: { counts: Record<string, number> } }>(
      await cli('stats', '--json'),
    )
    expect(stats.inbox.counts.done).toBe(0)
    expect(stats.outbox.counts.sent).toBe(0)
    expect(stats.inbox.counts.dead).toBe(3)
    expect((await cli('purge', '--older-than', '-1s', '--yes')).code).toBe(2)
  })
})

describe.concurrent('asking before a change', () => {
  it('off a terminal, without --yes: refused, exit 2, nothing changed', async () => {
    const cli = await seeded()
    const result = await cli('replay', '--all-dead')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'replay 3 inbound record(s) refused: not a terminal, so nothing was changed; pass --yes to go ahead, or --dry-run to only look (CONFIRMATION_REQUIRED)',
    )
    expect(result.stdout).toContain('replay 3 inbox record(s)')
    expect((await stateOf(cli, 'in-dead-1')).state).toBe('dead')
  })

  it('off a terminal, one named record is re-queued without --yes; an unknown send or two records still need it', async () => {
    const cli = await seeded()
    const replay = await cli('replay', 'in-dead-1', '--reason', 'from a script')
    expect(replay.code, replay.stderr).toBe(0)
    expect((await stateOf(cli, 'in-dead-1')).state).toBe('pending')
    expect((await cli('retry', 'out-dead-1')).code).toBe(0)
    expect((await stateOf(cli, 'out-dead-1')).state).toBe('pending')
    // A send whose outcome is unknown may have gone out: retrying it may send it twice.
    const unknown = await cli('retry', 'out-unknown')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('(CONFIRMATION_REQUIRED)')
    expect((await stateOf(cli, 'out-unknown')).state).toBe('unknown')
    const two = await cli('replay', 'in-dead-2', 'in-dead-3')
    expect(two.code).toBe(2)
    expect((await stateOf(cli, 'in-dead-2')).state).toBe('dead')
  })

  it('on a terminal: shows the plan, asks, and goes ahead only on yes', async () => {
    const url = `sqlite:${join(tempDir(), 'bot.db')}`
    await seedJournal(url)
    const no = await botmeshOnTerminal(['retry', 'out-dead-1', 'out-dead-2', '--backend', url], { input: 'n\n' })
    expect(no.code).toBe(1)
    expect(no.stdout).toContain('retry 2 send(s)? [y/N]')
    expect(no.stdout).toContain('cancelled: nothing was changed (CANCELLED)')
    expect(no.stdout).toMatch(/ID\S* +\S*STATE/)
    expect(no.stdout).toMatch(COLOUR)
    const yes = await botmeshOnTerminal(['retry', 'out-dead-1', 'out-dead-2', '--backend', url, '--reason', 'asked'], {
      input: 'y\n',
      env: { NO_COLOR: '1' },
    })
    expect(yes.code).toBe(0)
    expect(yes.stdout).toContain('retry: 2 of 2 done (reason: asked)')
    expect(yes.stdout).not.toMatch(COLOUR)
    const shown = jsonOf<Shown>(await botmesh(['show', 'out-dead-1', '--json', '--backend', url]))
    expect(shown[0]!.record.audit?.[0]?.reason).toBe('asked')
  })

  it('on a terminal, one named record is re-queued without asking (the README: it asks before more than one)', async () => {
    const url = `sqlite:${join(tempDir(), 'bot.db')}`
    await seedJournal(url)
    const replay = await botmeshOnTerminal(['replay', 'in-dead-1', '--backend', url], { env: { NO_COLOR: '1' } })
    expect(replay.code, replay.stdout).toBe(0)
    expect(replay.stdout).not.toContain('[y/N]')
    expect(replay.stdout).toContain('replay: 1 of 1 done')
    // A send whose outcome is unknown may have gone out: its retry still asks.
    const unknown = await botmeshOnTerminal(['retry', 'out-unknown', '--backend', url], { input: 'n\n', env: { NO_COLOR: '1' } })
    expect(unknown.stdout).toContain('retry 1 send(s)? [y/N]')
    expect(unknown.code).toBe(1)
  })
})

describe('with a bot running on the same file in this process', () => {
  let bot: Bot | undefined
  afterEach(async () => {
    await bot?.stop()
    bot = undefined
  })

  it("a retry and a replay from the CLI are done by the running bot's sweeper", async () => {
    const file = join(tempDir(), 'live.db')
    const provider = new MockProvider()
    provider.failNext(1, new UnsupportedContentError('scripted: not this time'))
    let storeDown = true
    const store = new (class extends MemoryStore {
      override async getCheckpoint(scope: string, chatId: string) {
        if (storeDown && chatId === 'chat-poison') throw new Error('scripted: the store is down')
        return super.getCheckpoint(scope, chatId)
      }
    })()
    bot = new Bot({
      provider,
      store,
      botId: 'live',
      logger: { warn: () => {}, error: () => {} },
      durability: {
        backend: new SQLiteDurability({ file }),
        instanceId: 'live-1',
        pollMs: 20,
        inbox: { maxAttempts: 1, backoff: { baseMs: 5, capMs: 10, jitter: 0 } },
      },
    })
    bot.on('error', () => {})
    bot.when(TEXT, (ctx) => ctx.reply(`echo ${ctx.message.text}`))
    await bot.start()
    await provider.receive({ id: 'm-1', chatId: 'chat-1', text: 'one' })
    await provider.receive({ id: 'm-poison', chatId: 'chat-poison', text: 'two' })
    await waitFor(
      async () =>
        (await bot!.durability!.outbox.list({ state: 'dead' })).length === 1 &&
        (await bot!.durability!.inbox.list({ state: 'dead' })).length === 1,
      { timeoutMs: 10_000 },
    )
    storeDown = false
    const url = `sqlite:${file}`
    const dlq = jsonOf<{ records: { kind: string; id: string }[] }>(
      await botmesh(['dlq', 'list', '--bot', 'live', '--json', '--backend', url]),
    )
    const firstReply = `${recordId('m-1', 'chat-1')}:1`
    expect(dlq.records.map((r) => `${r.kind}:${r.id}`)).toEqual([`inbox:${recordId('m-poison', 'chat-poison')}`, `outbox:${firstReply}`])
    expect((await botmesh(['retry', firstReply, '--yes', '--backend', url])).code).toBe(0)
    expect((await botmesh(['replay', '--all-dead', '--yes', '--backend', url])).code).toBe(0)
    await waitFor(() => provider.texts().includes('echo one') && provider.texts().includes('echo two'), { timeoutMs: 10_000 })
    const stats = jsonOf<{ dead: { inbox: number; outbox: number }; instances: { ids: string[] } }>(
      await botmesh(['stats', '--json', '--backend', url]),
    )
    expect(stats.dead).toEqual({ inbox: 0, outbox: 0 })
    expect(stats.instances.ids).toEqual(['live-1'])
  })
})
