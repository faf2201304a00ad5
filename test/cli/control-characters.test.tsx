/**
 * A stranger's chat id, text or error holding terminal escapes (ESC[31m, ESC]52 writing the
 * clipboard, ESC]0 setting the title, ESC[2J clearing the screen) reaches the operator's terminal
 * only escaped: through `show`, a list, and the dashboard's panels and detail view (issue 41).
 */
import { join } from 'node:path'
import { render } from 'ink-testing-library'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBackend, type OpenedBackend } from '../../src/operator/gateway/open.js'
import { escapeControls } from '../../src/operator/terminal-text.js'
import { showRecord } from '../../src/operator/show.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { readDeadPage } from '../../src/tui/io/dead-pages.js'
import { DeadLettersPanel } from '../../src/tui/views/DeadLettersPanel.js'
import { DetailView } from '../../src/tui/views/DetailView.js'
import { recordDetail } from '../../src/tui/views/detail-lines.js'
import { themeFor } from '../../src/tui/views/theme.js'
import { botmesh, botmeshOnTerminal, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const SCOPE = 'default/default/bot/default'
const CHAT = 'mallory\u001b[31m'
const TEXT = 'hi \u001b]52;c;cm0gLXJmIH4=\u0007 there'
const ERROR = 'refused \u001b]0;pwned\u0007\u001b[2J again'
const ID = 'mock:mallory:m1'

let url: string
let opened: OpenedBackend

beforeAll(async () => {
  url = `sqlite:${join(tempDir(), 'bot.db')}`
  const seeding = await openBackend(url, { access: 'create' })
  try {
    const record = inboxRecord(ID, {
      state: 'dead',
      attempts: 5,
      chatId: CHAT,
      event: { id: ID, chatId: CHAT, text: TEXT },
      lastError: { code: 'CRM\u001b[5m', message: ERROR, at: 1_000 },
    })
    await seeding.backend.journal(SCOPE).write('operator.import', [{ kind: 'inbox', record, expectVersion: 0 }])
  } finally {
    await seeding.close()
  }
  opened = await openBackend(url)
})
afterAll(() => opened?.close())

/** No raw ESC or BEL byte, and the chat id's escape shown as text. */
function expectInert(text: string): void {
  expect(text).not.toContain('\u001b')
  expect(text).not.toContain('\u0007')
  expect(text).toContain('mallory\\u001b[31m')
}

describe('the CLI', () => {
  it('show prints the chat id, the text and the error escaped', async () => {
    const shown = await botmesh(['show', ID, '--backend', url])
    expect(shown.code).toBe(0)
    expectInert(shown.stdout)
    expect(shown.stdout).toContain('refused \\u001b]0;pwned\\u0007\\u001b[2J again')
  })

  it('a list shows the chat id and the error escaped, in plain columns and on a terminal', async () => {
    const plain = await botmesh(['dlq', 'list', '--backend', url])
    const terminal = await botmeshOnTerminal(['dlq', 'list', '--backend', url], { columns: 160, env: { NO_COLOR: '1' } })
    for (const listed of [plain, terminal]) {
      expect(listed.code).toBe(0)
      expectInert(listed.stdout)
      expect(listed.stdout).toContain('CRM\\u001b[5m')
    }
  })

  it('the grouped list and the errors on stderr stay inert too', async () => {
    const grouped = await botmesh(['dlq', 'list', '--group-by', 'error', '--backend', url], { env: { COLUMNS: '200' } })
    expect(grouped.stdout).not.toContain('\u001b')
    const missing = await botmesh(['show', 'nobody\u001b]52;c;eA==\u0007', '--backend', url])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).not.toContain('\u001b')
    expect(missing.stderr).toContain('nobody\\u001b]52;c;eA==\\u0007')
  })

  it('--json keeps the record as it is, escaped by JSON', async () => {
    const json = await botmesh(['show', ID, '--backend', url, '--json'])
    expect(json.stdout).not.toContain('\u001b')
    const [shown] = JSON.parse(json.stdout) as { record: { chatId: string } }[]
    expect(shown!.record.chatId).toBe(CHAT)
  })
})

describe('the dashboard', () => {
  const theme = themeFor({})
  const frameOf = (element: React.ReactElement) => {
    const instance = render(element)
    const frame = instance.lastFrame() ?? ''
    instance.unmount()
    return frame
  }

  it('a dead-letter panel shows the chat id and the error escaped', async () => {
    const page = await readDeadPage(opened.backend.journal(SCOPE), { kind: 'inbox', state: 'dead' }, '')
    const frame = frameOf(
      <DeadLettersPanel
        number={3}
        title="Inbox dead letters"
        page={page}
        total={1}
        pagesBefore={0}
        filter=""
        row={{ index: 0, id: ID }}
        focused
        height={4}
        width={160}
        now={2_000}
        theme={theme}
      />,
    )
    expect(frame).not.toContain('\u001b]')
    expect(frame).not.toContain('\u001b[31m')
    expect(frame).not.toContain('\u0007')
    expect(frame).toContain('mallory\\u001b[31m')
  })

  it("a record's detail shows the chat id, the text and the error escaped", async () => {
    const [shown] = await showRecord(opened.backend.journal(SCOPE), ID, ['inbox'], 2_000)
    const detail = {
      type: 'detail' as const,
      target: { panel: 'inboxDead' as const, kind: 'inbox' as const, id: ID },
      content: recordDetail(shown!, 2_000),
      error: undefined,
      offset: 0,
    }
    const frame = frameOf(<DetailView detail={detail} height={40} width={120} theme={theme} />)
    expectInert(frame)
    expect(frame).toContain('refused \\u001b]0;pwned\\u0007\\u001b[2J again')
    expect(frame).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007')
  })
})

describe('escapeControls', () => {
  it('escapes C0, DEL, C1 and bidi controls as JSON writes them, keeps line feeds, and is idempotent', () => {
    const raw = 'a\u001b[2Jb\rc\td\u007fe\u009bf\u202eg\nh'
    const escaped = escapeControls(raw)
    expect(escaped).toBe('a\\u001b[2Jb\\rc\\td\\u007fe\\u009bf\\u202eg\nh')
    expect(escapeControls(escaped)).toBe(escaped)
    expect(escapeControls('plain text, née 12 €')).toBe('plain text, née 12 €')
  })
})
