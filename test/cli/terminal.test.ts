/**
 * The CLI on a real pseudo-terminal (util-linux `script`) of 80 × 24: every table fits the width
 * (compact rows, no borders or separators, cut with an ellipsis in the least important column),
 * `stats` and `dlq list` fit the screen; and the -o formats (table, json, jsonl; --json = -o json).
 */
import { join } from 'node:path'
import stringWidth from 'string-width'
import { beforeAll, describe, expect, it } from 'vitest'
import { openBackend } from '../../src/operator/gateway/open.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { SEED_SCOPE, seedJournal, SEEDED } from '../fixtures/cli/seed.js'
import { botmesh, botmeshOnTerminal, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
let url: string

beforeAll(async () => {
  url = `sqlite:${join(tempDir(), 'bot.db')}`
  await seedJournal(url)
})

/** Dead letters with ids as long as the demo's (`<provider>:<chat>:<event id>`, a send's `:<n>` after it). */
const DEMO_IDS = ['demo-channel:grace:demo.grace.9', 'demo-channel:frank:demo.frank.8:1'] as const

async function demoLikeJournal(): Promise<string> {
  const demo = `sqlite:${join(tempDir(), 'demo.db')}`
  await seedJournal(demo)
  const opened = await openBackend(demo, { access: 'write' })
  try {
    const now = await opened.backend.now()
    const lastError = { message: 'the CRM record of grace cannot be read, and the channel refused frank', code: 'CRM_DOWN', at: now }
    const results = await opened.backend.journal(SEED_SCOPE).write('operator.import', [
      { kind: 'inbox', record: inboxRecord(DEMO_IDS[0], { state: 'dead', chatId: 'grace', attempts: 3, lastError }), expectVersion: 0 },
      { kind: 'outbox', record: outboxRecord(DEMO_IDS[1], { state: 'dead', chatId: 'frank', attempts: 1, lastError }), expectVersion: 0 },
    ])
    expect(results.every((result) => result.ok)).toBe(true)
  } finally {
    await opened.close()
  }
  return demo
}

/** The lines a terminal run printed, without the \r the terminal adds. */
const linesOf = (text: string) =>
  text
    .replace(/\r/g, '')
    .split('\n')
    .filter((line) => line !== '')

describe.concurrent('on an 80-column terminal', () => {
  const commands = [
    ['dlq', 'list'],
    ['stats'],
    ['inbox', 'list'],
    ['outbox', 'list'],
    ['instances'],
    ['leases'],
    ['scopes'],
    ['replay', '--all-dead', '--dry-run'],
  ]

  it.each(commands)('%s %s: every line fits 80 columns, no borders, no separator lines', async (...args) => {
    const result = await botmeshOnTerminal([...args, '--backend', url], { env: { NO_COLOR: '1' } })
    expect(result.code, result.stdout).toBe(0)
    const lines = linesOf(result.stdout)
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80)
    expect(result.stdout).not.toMatch(/[┌│─┼]/)
    expect(lines.filter((line) => /^[-=\s]+$/.test(line))).toEqual([])
  })

  it('dlq list fits 80 × 24: every dead letter on one line, the last error cut first with an ellipsis, ids whole', async () => {
    const result = await botmeshOnTerminal(['dlq', 'list', '--backend', url], { env: { NO_COLOR: '1' } })
    const all = linesOf(result.stdout)
    // The table, then the line that leads to the sends whose outcome is unknown, wrapped at 80.
    const lines = all.slice(
      0,
      all.findIndex((line) => line.includes('outcome is unknown')),
    )
    const dead = [...SEEDED.inbox.dead, ...SEEDED.outbox.dead]
    expect(lines).toHaveLength(1 + dead.length)
    expect(all.slice(lines.length).join(' ')).toMatch(/^1 send's outcome is unknown .* botmesh dlq list --unknown$/)
    expect(lines[0]).toMatch(/^KIND +ID +STATE +CHAT +ATTEMPTS +UPDATED +LAST ERROR$/)
    for (const id of dead)
      expect(
        lines.find((line) => line.includes(` ${id} `)),
        id,
      ).toMatch(/ dead +chat-\w +\d+ +.+ ago +\S/)
    expect(lines.find((line) => line.includes('out-dead-1'))).toMatch(/UNSUPPORTED_CONTENT: \S*…$/)
  })

  it("ids as long as the demo's stay whole at 80 columns, copied from the table into show; the last error and the chat are cut or hidden first", async () => {
    const demo = await demoLikeJournal()
    const result = await botmeshOnTerminal(['dlq', 'list', '--backend', demo], { env: { NO_COLOR: '1' } })
    const lines = linesOf(result.stdout)
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80)
    for (const id of DEMO_IDS) {
      const row = lines.find((line) => line.includes(id))
      expect(row, `${id} whole in:\n${result.stdout}`).toBeDefined()
      const copied = row!.split(/\s+/)[1]!
      expect(copied).toBe(id)
      expect((await botmesh(['show', copied, '--json', '--backend', demo])).code).toBe(0)
    }
  })

  it('stats fits 80 × 24: a state a line with both journals side by side, oldest pending included', async () => {
    const result = await botmeshOnTerminal(['stats', '--backend', url], { env: { NO_COLOR: '1' } })
    const lines = linesOf(result.stdout)
    expect(lines.length).toBeLessThanOrEqual(24)
    expect(lines).toContainEqual(expect.stringMatching(/^STATE +INBOX +OUTBOX$/))
    expect(lines.find((line) => line.startsWith('dead '))).toMatch(/^dead +3 +2$/)
    expect(lines.find((line) => line.startsWith('oldest pending'))).toMatch(/^oldest pending +\S+ +\S+$/)
    expect(result.stdout).not.toContain('hidden to fit')
    // The labelled lines under the table are one block: every value starts in the same column.
    const labels = ['dead letters', 'live instances', 'rates (since start)', 'per minute (bots)', 'last minute (journal)']
    const starts = labels.map((label) => {
      const line = lines.find((l) => l.startsWith(label))!
      return line.length - line.slice(label.length).trimStart().length
    })
    expect(new Set(starts).size, lines.join('\n')).toBe(1)
  })

  it('instances at 80 columns: the least important columns are hidden and said so, the id and status kept', async () => {
    const result = await botmeshOnTerminal(['instances', '--backend', url], { env: { NO_COLOR: '1' } })
    const lines = linesOf(result.stdout)
    expect(lines[0]).toMatch(/^INSTANCE +BOT .*STATUS .*LAST BEAT/)
    expect(lines[1]).toContain('host-1/support/default')
    const hidden = lines.findIndex((line) => line.startsWith('hidden to fit: '))
    expect(lines[hidden]).toMatch(/^hidden to fit: last sweep.* \(-o json shows all\)$/)
    // Then why the counts may trail the bot, wrapped at 80 columns.
    const note = lines.slice(hidden + 1)
    expect(note.join(' ')).toMatch(/^inbound, sends and dead are each bot's counters at its last beat .* not counted yet$/)
    for (const line of note) expect(line.length).toBeLessThanOrEqual(80)
  })

  it('a narrower terminal cuts further and hides more, still within its width', async () => {
    const result = await botmeshOnTerminal(['dlq', 'list', '--backend', url], { env: { NO_COLOR: '1' }, columns: 50 })
    const lines = linesOf(result.stdout)
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(50)
    expect(lines).toContain('hidden to fit: last error (-o json shows all)')
  })
})

describe.concurrent('-o table|json|jsonl', () => {
  it('-o json is --json: the same one document', async () => {
    const [flag, alias] = await Promise.all([
      botmesh(['dlq', 'list', '-o', 'json', '--backend', url]),
      botmesh(['dlq', 'list', '--json', '--backend', url]),
    ])
    expect(flag.code, flag.stderr).toBe(0)
    expect(jsonOf(flag)).toEqual(jsonOf(alias))
  })

  it("-o jsonl: one record a line, the next page's cursor on stderr", async () => {
    const result = await botmesh(['inbox', 'list', '--limit', '2', '-o', 'jsonl', '--backend', url])
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; kind: string })
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line.kind).toBe('inbox')
    expect(result.stderr).toMatch(/^more: add --after \S+\n$/)
  })

  it('-o jsonl on a result that is not a list: the whole result on one line', async () => {
    const result = await botmesh(['stats', '-o', 'jsonl', '--backend', url])
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ scope: 'acme/prod/support/default' })
  })

  it('-o table on a pipe: plain columns, the same as no flag', async () => {
    const [table, plain] = await Promise.all([
      botmesh(['dlq', 'list', '-o', 'table', '--backend', url]),
      botmesh(['dlq', 'list', '--backend', url]),
    ])
    // The two ran a moment apart: an age may read "9s ago" in one and "10s ago" in the other.
    const shape = (out: string) => out.replace(/\d+/g, 'N').replace(/ +/g, ' ')
    expect(shape(table.stdout)).toBe(shape(plain.stdout))
    expect(table.stdout).not.toMatch(/[│─┌]/)
  })

  it('an unknown format, or --json with another -o, is bad usage', async () => {
    const unknown = await botmesh(['dlq', 'list', '-o', 'yaml', '--backend', url])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('-o/--output must be one of table, json, jsonl; got "yaml" (USAGE)')
    const both = await botmesh(['dlq', 'list', '--json', '-o', 'jsonl', '--backend', url])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--json is -o json; it cannot go with -o jsonl (USAGE)')
  })
})
