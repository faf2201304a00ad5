/**
 * What the dashboard cuts at 80 columns it says or shows whole (issue 44): a list longer than its
 * panel says how many rows it hides, and a record's detail shows its id whole on a line of its own.
 */
import { render } from 'ink-testing-library'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBackend, type OpenedBackend } from '../../src/operator/gateway/open.js'
import { showRecord } from '../../src/operator/show.js'
import { DeadLettersPanel } from '../../src/tui/views/DeadLettersPanel.js'
import { DetailView } from '../../src/tui/views/DetailView.js'
import { recordDetail } from '../../src/tui/views/detail-lines.js'
import { takeSnapshot, type Snapshot } from '../../src/tui/io/snapshot.js'
import { themeFor } from '../../src/tui/views/theme.js'
import { SCOPE } from '../fixtures/tui/seed.js'
import { linesOf, seededSqlite, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const theme = themeFor({})
let opened: OpenedBackend
let snap: Snapshot

beforeAll(async () => {
  opened = await openBackend(await seededSqlite(tempDir(), { scopes: [SCOPE] }))
  snap = await takeSnapshot(opened.backend, {
    scope: SCOPE,
    filter: '',
    pages: { inboxDead: undefined, outboxDead: undefined, unknown: undefined },
  })
})
afterAll(() => opened?.close())

const frameOf = (element: React.ReactElement) => {
  const instance = render(element)
  const frame = instance.lastFrame() ?? ''
  instance.unmount()
  return frame
}

describe('at 80 columns', () => {
  it('a cut list says how many rows it hides, at 80 columns, focused or not (issue 44)', () => {
    const records = Array.from({ length: 9 }, (_, n) => ({ ...snap.pages.outboxDead!.records[0]!, id: `out-dead-x${n + 1}` }))
    const panel = (index: number, focused: boolean) =>
      linesOf(
        frameOf(
          <DeadLettersPanel
            number={4}
            title="Outbox dead letters"
            page={{ ...snap.pages.outboxDead!, records }}
            total={9}
            pagesBefore={0}
            filter=""
            row={{ index, id: null }}
            focused={focused}
            height={3}
            width={80}
            now={snap.at}
            theme={theme}
          />,
        ),
      )
    const unfocused = panel(0, false)
    expect(unfocused[0]).toMatch(/Outbox dead letters {2}9$/)
    expect(unfocused[1]).toContain('out-dead-x1')
    expect(unfocused[2]?.trim()).toBe('↓ 8 more')
    const middle = panel(4, true)
    expect(middle[1]).toContain('out-dead-x5')
    expect(middle[2]?.trim()).toBe('↑ 4 above · ↓ 4 more')
    expect(panel(8, true)[2]?.trim()).toBe('↑ 8 above')
    for (const lines of [unfocused, middle]) expect(lines.every((line) => line.length <= 80)).toBe(true)
  })

  it('DetailView at 80 columns: an id the title cuts is shown whole on a line of its own (issue 44)', async () => {
    const [shown] = await showRecord(opened.backend.journal(SCOPE), 'in-dead-1', ['inbox'], snap.at)
    const id = 'demo-channel:grace:demo.grace.9-with-a-longer-message-id-x'
    const content = recordDetail({ ...shown!, record: { ...shown!.record, id } }, snap.at)
    const detail = {
      type: 'detail' as const,
      target: { panel: 'inboxDead' as const, kind: 'inbox' as const, id },
      content,
      error: undefined,
      offset: 0,
    }
    const lines = linesOf(frameOf(<DetailView detail={detail} height={12} width={80} theme={theme} />))
    expect(lines[0]).toContain('…')
    expect(lines).toContain(`id          ${id}`)
  })
})
