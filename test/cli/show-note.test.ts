/**
 * `show` tells what a record's last run did when it did something an operator would not expect:
 * here, a replayed flow answer that fed no step (its `note`), in the table and in --json.
 */
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { openBackend } from '../../src/operator/gateway/open.js'
import { inboxRecord, outboxRecord } from '../../src/testing/conformance/fixtures.js'
import { botmesh, jsonOf, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const NOTE =
  'replayed, but this message already answered question 1 of flow "signup": it is not taken as the answer to the question asked now, and nothing ran'

it('show prints the note of a replayed answer that fed nothing', async () => {
  const url = `sqlite:${join(tempDir(), 'bot.db')}`
  const opened = await openBackend(url, { access: 'create' })
  try {
    const record = inboxRecord('mock:c1:n', { state: 'done', note: NOTE })
    await opened.backend.journal('default/default/bot/default').write('operator.import', [{ kind: 'inbox', record, expectVersion: 0 }])
  } finally {
    await opened.close()
  }
  const human = await botmesh(['show', 'mock:c1:n', '--backend', url])
  expect(human.stdout).toContain(NOTE.slice(0, 60))
  const [shown] = jsonOf<{ record: { note?: string } }[]>(await botmesh(['show', 'mock:c1:n', '--backend', url, '--json']))
  expect(shown!.record.note).toBe(NOTE)
})

it('dlq list counts the provider call of an unknown send whose outcome was lost, as show does (never 0)', async () => {
  const url = `sqlite:${join(tempDir(), 'bot.db')}`
  const opened = await openBackend(url, { access: 'create' })
  try {
    // What a crash mid-call leaves: no failure counted, the one call's outcome unknown.
    const record = outboxRecord('mock:c1:m:1', { state: 'unknown', attempts: 0 })
    await opened.backend.journal('default/default/bot/default').write('operator.import', [{ kind: 'outbox', record, expectVersion: 0 }])
  } finally {
    await opened.close()
  }
  const listed = await botmesh(['dlq', 'list', '--unknown', '--backend', url], { env: { COLUMNS: '120' } })
  expect(listed.stdout).toMatch(/^ID +STATE +CHAT +ATTEMPTS /)
  expect(listed.stdout).toMatch(/^mock:c1:m:1\s+unknown\s+\S+\s+1\s/m)
  const shown = await botmesh(['show', 'mock:c1:m:1', '--backend', url])
  expect(shown.stdout).toMatch(/^attempts\s+1 \(the last one's outcome unknown\)$/m)
})
