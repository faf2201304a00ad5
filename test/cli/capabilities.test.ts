/** One table of backend capabilities: what the CLI and dashboard ask instead of testing a backend's kind. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  BACKEND_CAPABILITIES,
  capabilitiesOf,
  openBackend,
  parseBackendUrl,
  salvageJournalFile,
  verifyJournalFile,
} from '../../src/operator/gateway/open.js'
import { BACKEND_KINDS } from '../../src/operator/gateway/backend-url.js'
import { botmesh } from './helpers.js'

describe('backend capabilities', () => {
  it('every kind a URL can name has a row', () => {
    expect(Object.keys(BACKEND_CAPABILITIES).sort()).toEqual([...BACKEND_KINDS].sort())
  })

  it("a journal file of the operator's is verified as a file and compacted explicitly; a throwaway one is not", () => {
    expect(capabilitiesOf(parseBackendUrl('file:./x.json'))).toMatchObject({
      compaction: 'explicit',
      verifiedAsFile: true,
      salvage: true,
      oneProcessAtATime: true,
    })
    expect(capabilitiesOf(parseBackendUrl('sqlite:./x.db'))).toMatchObject({
      compaction: 'explicit',
      verifiedAsFile: true,
      salvage: false,
      demo: true,
    })
    expect(capabilitiesOf(parseBackendUrl('sqlite'))).toMatchObject({ compaction: 'none', verifiedAsFile: false, demo: false })
    expect(capabilitiesOf(parseBackendUrl('redis://127.0.0.1:6379')).compaction).toBe('server')
    expect(capabilitiesOf(parseBackendUrl('events:./e.json')).compaction).toBe('automatic')
  })

  it('the CLI refuses what the table says a backend cannot do, before opening anything', async () => {
    const [compact, salvage, demo] = await Promise.all([
      botmesh(['compact', '--backend', 'events:./no-such/e.json']),
      botmesh(['verify', '--salvage', '/tmp/never', '--backend', 'sqlite:./no-such/x.db']),
      botmesh(['demo', '--backend', 'memory', '--no-dashboard']),
    ])
    expect(compact.stderr).toContain('an events journal compacts on its own')
    expect(salvage.stderr).toContain('--salvage works on file journals (file:<path>)')
    expect(demo.stderr).toContain('the demo runs on a SQLite file')
    for (const run of [compact, salvage, demo]) expect(run.code).toBe(2)
  })

  it('what the table allows, the opened backend or the journal file offers; the rest is undefined', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botmesh-capabilities-'))
    try {
      for (const url of [`file:${join(dir, 'j.json')}`, `sqlite:${join(dir, 'j.db')}`]) {
        const opened = await openBackend(url, { access: 'create' })
        try {
          expect((await opened.compact!(() => {})).kind, url).toBe(parseBackendUrl(url).kind)
        } finally {
          await opened.close()
        }
        expect(await verifyJournalFile(parseBackendUrl(url)), url).toMatchObject({ kind: parseBackendUrl(url).kind })
      }
      const throwaway = await openBackend('memory')
      expect(throwaway.compact).toBeUndefined()
      await throwaway.close()
      expect(await verifyJournalFile(parseBackendUrl('sqlite'))).toBeUndefined()
      expect(await salvageJournalFile(parseBackendUrl(`sqlite:${join(dir, 'j.db')}`), join(dir, 'out.json'))).toBeUndefined()
      expect(await salvageJournalFile(parseBackendUrl(`file:${join(dir, 'j.json')}`), join(dir, 'out.json'))).toMatchObject({
        out: join(dir, 'out.json'),
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
