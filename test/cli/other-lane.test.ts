/**
 * `retry <inbox id>` and `replay <outbox key>` (issue 44): the record is not in the lane the command
 * works on, but the other lane has it, so the error says so and names the command that takes it.
 * Still RECORD_NOT_FOUND, exit 2, nothing changed; an id no lane has keeps the plain message.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { seedJournal } from '../fixtures/cli/seed.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

async function seeded(): Promise<(...args: string[]) => ReturnType<typeof botmesh>> {
  const url = `sqlite:${join(tempDir(), 'bot.db')}`
  await seedJournal(url)
  return (...args) => botmesh([...args, '--backend', url])
}

const stateOf = async (cli: Awaited<ReturnType<typeof seeded>>, id: string) =>
  jsonOf<{ record: { state: string } }[]>(await cli('show', id, '--json'))[0]!.record.state

describe.concurrent('a record named to the command of the other lane', () => {
  it('retry <inbox id> says it is an inbox record and suggests botmesh replay', async () => {
    const cli = await seeded()
    const result = await cli('retry', 'in-dead-1', '--yes')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'no outbox record "in-dead-1": "in-dead-1" is an inbox record, which replay takes; try botmesh replay in-dead-1 (RECORD_NOT_FOUND)',
    )
    expect(await stateOf(cli, 'in-dead-1')).toBe('dead')
  })

  it('replay <outbox key> says it is an outbox record and suggests botmesh retry', async () => {
    const cli = await seeded()
    const result = await cli('replay', 'out-dead-1', 'out-dead-2', 'ghost', '--yes')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'no inbox record "out-dead-1", "out-dead-2", "ghost": "out-dead-1", "out-dead-2" are outbox records, which retry takes; try botmesh retry out-dead-1 out-dead-2 (RECORD_NOT_FOUND)',
    )
    expect(await stateOf(cli, 'out-dead-1')).toBe('dead')
  })

  it('an id no lane has, or one given to discard, keeps the plain message', async () => {
    const cli = await seeded()
    const result = await cli('retry', 'ghost')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no outbox record "ghost" (RECORD_NOT_FOUND)')
    expect(result.stderr).not.toContain('try botmesh')
    // discard forgets a send; replaying the message instead is not what was asked.
    const discard = await cli('discard', 'in-dead-1', '--yes')
    expect(discard.code).toBe(2)
    expect(discard.stderr).toContain('no outbox record "in-dead-1" (RECORD_NOT_FOUND)')
  })
})
