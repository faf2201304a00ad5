/** One table of backend capabilities: what the CLI and dashboard ask instead of testing a backend's kind. */
import { describe, expect, it } from 'vitest'
import { BACKEND_CAPABILITIES, capabilitiesOf, parseBackendUrl } from '../../src/backends/open.js'
import { BACKEND_KINDS } from '../../src/backends/backend-url.js'
import { botmesh } from './helpers.js'

describe('backend capabilities', () => {
  it('every kind a URL can name has a row', () => {
    expect(Object.keys(BACKEND_CAPABILITIES).sort()).toEqual([...BACKEND_KINDS].sort())
  })

  it("a journal file of the operator's is verified as a file and compacted explicitly; a throwaway one is not", () => {
    expect(capabilitiesOf(parseBackendUrl('file:./x.json'))).toMatchObject({ compaction: 'explicit', verifiedAsFile: true, salvage: true, oneProcessAtATime: true })
    expect(capabilitiesOf(parseBackendUrl('sqlite:./x.db'))).toMatchObject({ compaction: 'explicit', verifiedAsFile: true, salvage: false, demo: true })
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
})
