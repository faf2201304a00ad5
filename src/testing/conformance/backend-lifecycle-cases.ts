/**
 * Conformance cases of the backend as a whole rather than its journal: its clock, and start and stop
 * counted so that several users can share one backend.
 */
import assert from 'node:assert/strict'
import type { ConformanceCase } from './case.js'
import { inboxRecord } from './fixtures.js'

export const BACKEND_LIFECYCLE_CASES: ConformanceCase[] = [
  {
    name: 'the clock is a plausible time in ms and does not go back',
    async run({ backend }) {
      const first = await backend.now()
      const second = await backend.now()
      assert.ok(Number.isFinite(first) && Math.abs(first - Date.now()) < 10 * 60_000, `now() = ${first}`)
      assert.ok(second >= first)
    },
  },
  {
    name: 'start and stop are counted: the backend keeps working until the last stop',
    async run({ backend, journal }) {
      await backend.start()
      await backend.stop()
      const j = journal()
      const [result] = await j.write('inbox.admit', [{ kind: 'inbox', record: inboxRecord('still-open'), expectVersion: 0 }])
      assert.equal(result!.ok, true)
    },
  },
]
