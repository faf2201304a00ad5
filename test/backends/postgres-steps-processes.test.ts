/**
 * Per-chat order across processes on PostgreSQL (issue 40): three child processes, each with its
 * own pool, admit to one chat at once. The chat's row lock lets one admission at a time look at the
 * chat, so exactly one message runs and every other one queues, in the order the chat's list shows;
 * each settle hands the next one over, whoever admitted it. Then the processes admit more while the
 * chain runs. The runs are logged in one table (a serial per row), so the parent sees them in one
 * order: never two at once, the first round in the list's order, each process's messages in the
 * order it admitted them, every message run exactly once and done. Nothing here measures time.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresDurability } from '../../src/backends/postgres/index.js'
import { CHAT_COLLECTION } from '../../src/backends/postgres/steps/steps-function.js'
import type { ChildConfig } from '../fixtures/postgres/steps-chat-child.js'
import { PG_URL, adminQuery, dropTablePrefix, postgresAvailable, randomTablePrefix } from '../../test-utils/postgres.js'

const available = await postgresAvailable()

const CHILD = fileURLToPath(new URL('../fixtures/postgres/steps-chat-child.ts', import.meta.url))
const LOADER = fileURLToPath(new URL('../../test-utils/ts-loader.mjs', import.meta.url))
const PROCESSES = 3
const COUNT = 5

/** A child process and its reports, one JSON object a line. */
function startChild(config: ChildConfig) {
  const child: ChildProcess = spawn(process.execPath, ['--import', LOADER, CHILD, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const reports = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  return {
    child,
    async report(): Promise<Record<string, unknown>> {
      const { value, done } = await reports.next()
      if (done) throw new Error(`process ${config.process} ended without a report: ${stderr}`)
      return JSON.parse(value as string) as Record<string, unknown>
    },
    cue: (line: string) => child.stdin!.write(`${line}\n`),
  }
}

describe.runIf(available)('the PostgreSQL steps across processes', () => {
  const tablePrefix = randomTablePrefix()
  const children: ReturnType<typeof startChild>[] = []
  afterAll(async () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL')
    await dropTablePrefix(tablePrefix)
  })

  it('admissions to one chat from three processes: one runs, the others queue in the list order, each settle hands the next over', async () => {
    const durability = new PostgresDurability({ connectionString: PG_URL, tablePrefix })
    await durability.start()
    const logTable = `"${tablePrefix}runs"`
    await adminQuery(`CREATE TABLE ${logTable} (n bigserial PRIMARY KEY, event text NOT NULL, id text NOT NULL)`)
    const [scope, chat] = ['order', 'c1']
    for (let process = 1; process <= PROCESSES; process++)
      children.push(startChild({ url: PG_URL, tablePrefix, logTable, scope, chat, process, count: COUNT }))
    for (const child of children) expect(await child.report()).toEqual({ ready: true })

    for (const child of children) child.cue('admit')
    const first = await Promise.all(children.map(async (child) => (await child.report()).admitted as string[]))
    expect(first.flat().filter((type) => type === 'run')).toHaveLength(1)
    expect(first.flat().filter((type) => type === 'queued')).toHaveLength(PROCESSES * COUNT - 1)
    const { rows } = await adminQuery<{ value: string }>(
      `SELECT value FROM ${durability.kv.tables.durable} WHERE scope = $1 AND collection = $2 AND key = $3`,
      [scope, CHAT_COLLECTION, JSON.stringify(chat)],
    )
    const listed = JSON.parse(rows[0]!.value) as string[]
    expect(listed).toHaveLength(PROCESSES * COUNT)

    for (const child of children) child.cue('go')
    for (const child of children) expect(await child.report()).toHaveProperty('done')

    const { rows: log } = await adminQuery<{ event: string; id: string }>(`SELECT event, id FROM ${logTable} ORDER BY n`)
    // Never two runs at once: each start is followed by its own end.
    for (let n = 0; n < log.length; n += 2)
      expect([log[n], log[n + 1]]).toEqual([
        { event: 'start', id: log[n]!.id },
        { event: 'end', id: log[n]!.id },
      ])
    const runs = log.filter((row) => row.event === 'start').map((row) => row.id)
    expect(new Set(runs).size).toBe(2 * PROCESSES * COUNT)
    expect(runs.slice(0, listed.length)).toEqual(listed)
    for (let process = 1; process <= PROCESSES; process++) {
      const own = runs.filter((id) => id.startsWith(`mock:${chat}:${process}`))
      expect(own).toEqual(Array.from({ length: 2 * COUNT }, (_, k) => `mock:${chat}:${process * 1000 + k}`))
    }
    expect(await durability.journal(scope).count('inbox')).toEqual({ done: 2 * PROCESSES * COUNT })
    await durability.stop()
  }, 120_000)
})
