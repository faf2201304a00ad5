/**
 * The whole dashboard (ink-testing-library: `lastFrame` + `stdin.write`) on a real SQLite journal
 * holding records in every state: what it shows at 80×24 and after resizes, every key, and every
 * action, checked on the screen and in the backend (the same services as the CLI: a replayed
 * record is pending again with an audit entry, a discarded send is gone).
 */
import { describe, expect, it } from 'vitest'
import { openBackend } from '../../src/operator/gateway/open.js'
import { inboxRecord } from '../../src/testing/conformance/fixtures.js'
import { OTHER_SCOPE, SCOPE, SEEDED } from '../fixtures/tui/seed.js'
import { joined, KEYS, linesOf, mountDashboard, panelRows, readRecord, seededSqlite, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()

const rowIds = (frame: string, title: string) => panelRows(frame, title).map((line) => line.slice(2).trim().split(/\s+/)[0])
const selected = (frame: string) =>
  linesOf(frame)
    .find((line) => line.startsWith('› '))
    ?.slice(2)
    .trim()
    .split(/\s+/)[0]
const focusedTitle = (frame: string) => linesOf(frame).find((line) => line.startsWith('▶ '))

describe('what it shows', () => {
  it('fits 80×24: status, counts, every panel, the help bar; and follows resizes', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    let frame = await dashboard.until((f) => f.includes('in-dead-1') && f.includes('out-unknown-1'), 'the first refresh')
    const lines = linesOf(frame)
    expect(lines.length).toBeLessThanOrEqual(23)
    expect(lines.every((line) => line.length <= 80)).toBe(true)
    // At 80 columns the status line gives the refresh's cost and the word "scope" to the backend URL.
    expect(lines[0]).toMatch(new RegExp(`^● \\d\\d:\\d\\d:\\d\\d · every 100ms · ${SCOPE} · sqlite:/tmp/`))
    expect(lines[2]).toMatch(/^inbox\s+pending 1 {2}processing 2 {2}done 1 {2}failed 1 {2}dead 3/)
    expect(lines[4]).toMatch(/^outbox\s+pending 1 {2}sending 1 {2}sent 1 {2}failed 1 {2}dead 2 {2}unknown 2/)
    for (const title of ['1 Instances', '2 Active leases', '3 Inbox dead letters', '4 Outbox dead letters', '5 Unknown sends'])
      expect(frame).toContain(title)
    expect(focusedTitle(frame)).toMatch(/^▶ 3 Inbox dead letters/)
    expect(rowIds(frame, 'Inbox dead letters')).toEqual(['in-dead-1', 'in-dead-2', 'in-dead-3'])
    expect(lines.at(-1)).toBe('⇥ ←→ 1-5 panel  ↑↓ jk row  pgdn pgup page  ? all keys  q quit')

    dashboard.resize(120, 40)
    frame = await dashboard.until((f) => linesOf(f).length > 30, 'the taller layout')
    expect(linesOf(frame).length).toBe(39)
    expect(panelRows(frame, 'Active leases')).toHaveLength(3)
    expect(panelRows(frame, 'Instances')).toHaveLength(2)
    expect(frame).toMatch(/in 200 out 180 dead in 3 dead out 2/)
    expect(linesOf(frame).some((line) => line.length > 80)).toBe(true)

    dashboard.resize(60, 16)
    frame = await dashboard.until((f) => linesOf(f).length <= 15, 'the short layout')
    expect(linesOf(frame).every((line) => line.length <= 60)).toBe(true)
    expect(linesOf(frame)[2]).toMatch(/^inbox\s+pending 1/)
    expect(linesOf(frame)[3]).toMatch(/^outbox\s+pending 1/)
    expect(frame).toContain('▶ 3 Inbox dead letters')
  })

  it('counts rates between refreshes and draws them, and counts the leases down', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.resize(100, 40)
    const opened = await openBackend(url, { access: 'write' })
    try {
      const now = await opened.backend.now()
      const done = Array.from({ length: 40 }, (_, n) => ({
        kind: 'inbox' as const,
        record: inboxRecord(`new-done-${n}`, { state: 'done', updatedAt: now }),
        expectVersion: 0,
      }))
      await opened.backend.journal(SCOPE).write('operator.import', done)
    } finally {
      await opened.close()
    }
    const frame = await dashboard.until(
      (f) => /done 41/.test(f) && /done \d+(\.\d)?\/s {2}[▁▂▃▄▅▆▇█]*[▂▃▄▅▆▇█]/.test(f),
      'a done rate and a bar in the sparkline',
    )
    expect(frame).toMatch(/in \d+(\.\d)?\/s {2}done/)
    const expiry = (f: string) =>
      panelRows(f, 'Active leases')
        .find((line) => line.includes('in-processing'))
        ?.match(/expires in (\d+)m (\d+)s/)
    const first = expiry(frame)!
    await dashboard.until((f) => {
      const later = expiry(f)
      return later !== undefined && later !== null && Number(later[1]) * 60 + Number(later[2]) < Number(first[1]) * 60 + Number(first[2])
    }, 'the lease countdown to move')
  })
})

describe('keys', () => {
  it('move between panels (tab, shift-tab, arrows, numbers) and rows, open a detail and close it', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press(KEYS.tab)
    await dashboard.until((f) => focusedTitle(f)?.includes('4 Outbox dead letters') === true, 'tab to the outbox DLQ')
    dashboard.press(KEYS.shiftTab, KEYS.shiftTab)
    await dashboard.until((f) => focusedTitle(f)?.includes('2 Active leases') === true, 'shift-tab twice to the leases')
    dashboard.press(KEYS.left)
    await dashboard.until((f) => focusedTitle(f)?.includes('1 Instances') === true, 'left to the instances')
    dashboard.press('5')
    await dashboard.until((f) => focusedTitle(f)?.includes('5 Unknown sends') === true, '5 to the unknown sends')
    dashboard.press(KEYS.right)
    await dashboard.until((f) => focusedTitle(f)?.includes('1 Instances') === true, 'right wraps around')
    dashboard.press('3', KEYS.down, 'j')
    await dashboard.until((f) => selected(f) === 'in-dead-3', 'down twice')
    dashboard.press(KEYS.up)
    await dashboard.until((f) => selected(f) === 'in-dead-2', 'up once')
    dashboard.press(KEYS.enter)
    let frame = await dashboard.until((f) => f.includes('▶ inbound record in-dead-2'), 'the detail')
    expect(frame).toMatch(/why {9}dead since .* after 5 run\(s\): the CRM timed/)
    expect(frame).toContain('chat        chat-b')
    expect(frame).toContain('\nr replay  esc back\n')
    dashboard.press(KEYS.escape)
    await dashboard.until((f) => f.includes('▶ 3 Inbox dead letters'), 'the panels again')
    dashboard.press('2', KEYS.enter)
    frame = await dashboard.until((f) => f.includes('▶ inbound record in-stuck'), "the stuck lease's record")
    expect(frame).toMatch(/lease {7}bot-9, fencing token 4, expires \d+s ago/)
    expect(frame).toMatch(/the lease expired \d+s ago/)
    dashboard.press('q', '1', KEYS.down, KEYS.enter)
    frame = await dashboard.until((f) => f.includes(`▶ instance ${SEEDED.instances.gone}`), "the gone instance's detail")
    expect(frame).toMatch(/status {6}gone: no heartbeat for 2m/)
    expect(frame).toMatch(/inboundJournaled\s+7/)
  })

  it('e shows the dead letters grouped by error with the command for a group; w the retry queue, soonest first', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('e')
    let frame = await dashboard.until((f) => f.includes('▶ Dead letters by error  5 in 5 group(s)'), 'the groups')
    // At 80 columns a group's command goes on a line of its own under it, whole, ready to copy.
    expect(frame).toMatch(/^ +1 {2}RATE_LIMITED +[\dhms ]+ ago +rate limited\n {8}· botmesh retry --all-dead --error-code RATE_LIMITED$/m)
    expect(frame).toMatch(
      /^ +1 {2}CRM_REFUSED +[\dhms ]+ ago +the CRM refused the lead\n {8}· botmesh replay --all-dead --error-code CRM_REFUSED$/m,
    )
    expect(linesOf(frame).every((line) => line.length <= 80)).toBe(true)
    dashboard.press('w')
    frame = await dashboard.until((f) => f.includes('▶ Retry queue  4 waiting'), 'the retry queue')
    const rows = frame.split('\n').filter((line) => /^(in|overdue) /.test(line))
    // Soonest first: out-failed retries in 30 s, in-failed in 60 s, then the pending records due later.
    expect(rows.map((line) => line.split(' · ')[0]!.trim().split(/\s+/).at(-1))).toEqual([
      'out-failed',
      'in-failed',
      'out-pending',
      'in-pending',
    ])
    expect(frame).toMatch(/last min \d+ failed, \d+ dead/)
    dashboard.press(KEYS.escape)
    await dashboard.until((f) => f.includes('3 Inbox dead letters'), 'the panels again')
  })

  it('filter by text (/ … enter), esc clears it', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('/', 'C', 'R', 'M', 'x', KEYS.backspace)
    await dashboard.until((f) => f.includes('filter: CRM█'), 'the filter being typed')
    dashboard.press(KEYS.enter)
    const frame = await dashboard.until((f) => f.includes('2 match "CRM" of 3'), 'the filtered list')
    expect(rowIds(frame, 'Inbox dead letters')).toEqual(['in-dead-1', 'in-dead-2'])
    expect(frame).toContain('4 Outbox dead letters  0 match "CRM" of 2')
    expect(frame).toContain('Active leases  none match "CRM"')
    expect(frame).toContain('filter "CRM" on every list (esc clears)')
    dashboard.press(KEYS.escape)
    await dashboard.until((f) => rowIds(f, 'Inbox dead letters').length === 3 && !f.includes('match'), 'the filter cleared')
  })

  it('the filter (/) also matches what a message or a send says, as --search does', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('/', 'TEXT OF IN-DEAD-2', KEYS.enter)
    let frame = await dashboard.until((f) => f.includes('1 match "TEXT OF IN-DEAD-2" of 3'), 'the inbound filtered by its text')
    expect(rowIds(frame, 'Inbox dead letters')).toEqual(['in-dead-2'])
    dashboard.press(KEYS.escape)
    await dashboard.until((f) => rowIds(f, 'Inbox dead letters').length === 3 && !f.includes('match'), 'the filter cleared')
    dashboard.press('/', 'reply OUT-DEAD-1', KEYS.enter)
    frame = await dashboard.until((f) => f.includes('1 match "reply OUT-DEAD-1" of 2'), 'the sends filtered by their content')
    expect(frame).toContain('0 match "reply OUT-DEAD-1" of 3')
  })

  it('pause (p) freezes the view; resume shows what changed meanwhile', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('p')
    await dashboard.until((f) => f.includes('PAUSED') && f.includes('p resume'), 'paused')
    const opened = await openBackend(url, { access: 'write' })
    try {
      const now = await opened.backend.now()
      const record = inboxRecord('in-dead-new', {
        state: 'dead',
        chatId: 'chat-z',
        attempts: 5,
        updatedAt: now,
        lastError: { message: 'late', code: 'LATE', at: now },
      })
      await opened.backend.journal(SCOPE).write('operator.import', [{ kind: 'inbox', record, expectVersion: 0 }])
    } finally {
      await opened.close()
    }
    // A paused view refreshes nothing: ten refresh periods pass (by the clock the state keeps) without the new record.
    await dashboard.until((f) => f.includes('PAUSED'), 'still paused')
    const before = Date.now()
    await dashboard.until(() => Date.now() - before > 1_000, 'ten refresh periods')
    expect(dashboard.frame()).not.toContain('in-dead-new')
    dashboard.press('p')
    const frame = await dashboard.until((f) => f.includes('in-dead-new'), 'the new dead letter after resuming')
    expect(frame).toContain('every 100ms')
  })

  it('help (?) lists every key; any key closes it; q and ctrl-c quit', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('?')
    const frame = await dashboard.until((f) => f.includes('Keys'), 'the help')
    expect(frame).toContain('replay / retry every record of the panel')
    dashboard.press('q')
    await dashboard.until((f) => f.includes('▶ 3 Inbox dead letters'), 'the help closed, not quit')
    expect(dashboard.exited()).toBe(false)
    dashboard.press('q')
    await dashboard.until(() => dashboard.exited(), 'q to quit')

    const second = mountDashboard(url)
    await second.until((f) => f.includes('in-dead-1'), 'the first refresh')
    second.press(KEYS.ctrlC)
    await second.until(() => second.exited(), 'ctrl-c to quit')
  })

  it('switches scope (s); with several scopes and none chosen it asks first', async () => {
    const url = await seededSqlite(tempDir(), { scopes: [SCOPE, OTHER_SCOPE] })
    const dashboard = mountDashboard(url, { scope: undefined })
    let frame = await dashboard.until(
      (f) => f.includes('the backend holds several scopes: choose one') && f.includes(OTHER_SCOPE),
      'the scope picker',
    )
    expect(frame).toMatch(/^● connecting… · every 100ms · scope … · /)
    dashboard.press(KEYS.escape)
    await dashboard.until((f) => f.includes('choose a scope (↑↓ and enter), or q to quit'), 'a scope is needed')
    dashboard.press(KEYS.down, KEYS.enter)
    frame = await dashboard.until((f) => f.includes(` · ${SCOPE} · `) && f.includes('in-dead-1'), 'the chosen scope')
    dashboard.press('s')
    frame = await dashboard.until((f) => f.includes('▶ Scopes · switch scope') && f.includes(`${SCOPE} (shown)`), 'the picker again')
    dashboard.press(KEYS.up, KEYS.enter)
    frame = await dashboard.until((f) => f.includes(` · ${OTHER_SCOPE} · `) && f.includes('in-dead-1'), 'the other scope')
    expect(frame).toMatch(/^inbox\s+pending 1/m)

    const byBot = mountDashboard(url, { scope: undefined, bot: 'nobody' })
    await byBot.until(
      (f) => /✖ refresh failed( \d+×)?, retry(ing| in \d+(ms|s)): no scope of the bot "nobody"/.test(f),
      'an unknown bot, retried',
    )
  })

  it('pages through a dead-letter queue (pgdn, pgup) and keeps reading only pages', async () => {
    const url = await seededSqlite(tempDir(), { extraDead: 120 })
    const dashboard = mountDashboard(url)
    let frame = await dashboard.until((f) => f.includes('123 in all · page 1 (pgdn: more): 50 shown'), 'the first page')
    dashboard.press(KEYS.pageDown)
    frame = await dashboard.until((f) => f.includes('page 2 (pgdn: more): 50 shown'), 'the second page')
    expect(selected(frame)).toBe('in-bulk-0047')
    dashboard.press(']')
    frame = await dashboard.until((f) => f.includes('page 3: 23 shown'), 'the last page')
    dashboard.press('G')
    frame = await dashboard.until((f) => selected(f) === 'in-bulk-0119', 'the last row of the last page (the index is in time order)')
    dashboard.press(KEYS.pageUp, KEYS.pageUp)
    frame = await dashboard.until((f) => f.includes('page 1 (pgdn: more)') && selected(f) === 'in-dead-1', 'back on the first page')
  })
})

describe('actions, through the same services as the CLI', () => {
  it('replays the selected dead inbound record after y: it leaves the DLQ and is pending with an audit entry', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('r')
    // At 80 columns the question wraps, whole, and the panels give up the line it takes.
    const asked = await dashboard.until(
      (f) => joined(f).includes('? Replay dead inbound record in-dead-1 (chat chat-a)? It runs again with a fresh budget. reason: █'),
      'the whole question',
    )
    expect(linesOf(asked).every((line) => line.length <= 80)).toBe(true)
    expect(linesOf(asked).length).toBeLessThanOrEqual(23)
    expect(linesOf(asked).at(-2)).toBe('type why (kept on each record)  enter confirm  esc cancel')
    for (const title of ['1 Instances', '2 Active leases', '3 Inbox dead letters', '4 Outbox dead letters', '5 Unknown sends'])
      expect(asked).toContain(title)
    dashboard.press(KEYS.escape)
    await dashboard.until((f) => f.includes('cancelled: nothing was changed'), 'cancelled')
    expect((await readRecord(url, 'inbox', 'in-dead-1'))?.state).toBe('dead')
    dashboard.press('r', KEYS.enter)
    const frame = await dashboard.until(
      (f) => f.includes('✔ replayed 1 of 1: in-dead-1') && !rowIds(f, 'Inbox dead letters').includes('in-dead-1'),
      'the record out of the DLQ',
    )
    expect(frame).toMatch(/^inbox\s+pending 2 {2}processing 2 {2}done 1 {2}failed 1 {2}dead 2/m)
    expect(selected(frame)).toBe('in-dead-2')
    const record = await readRecord(url, 'inbox', 'in-dead-1')
    expect(record).toMatchObject({ state: 'pending', attempts: 0, lease: null })
    expect(record?.audit?.at(-1)).toMatchObject({ action: 'replay', reason: 'botmesh dashboard' })
  })

  it('replays from the detail, and replays a whole DLQ (R) with the count from the index', async () => {
    const url = await seededSqlite(tempDir(), { extraDead: 120 })
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('123 in all'), 'the first refresh')
    dashboard.press(KEYS.enter)
    await dashboard.until((f) => f.includes('▶ inbound record in-dead-1'), 'the detail')
    dashboard.press('r', KEYS.enter)
    await dashboard.until((f) => f.includes('✔ replayed 1 of 1: in-dead-1') && f.includes('122 in all'), 'replayed from the detail')
    dashboard.press('R')
    await dashboard.until((f) => f.includes('? Replay ALL 122 dead inbound records? reason: █'), 'the question with the count')
    dashboard.press(KEYS.enter)
    const frame = await dashboard.until(
      (f) => f.includes('✔ replayed 122 of 122') && /Inbox dead letters {2}none/.test(f),
      'every dead letter replayed',
      30_000,
    )
    expect(frame).toMatch(/^inbox\s+pending 124 /m)
    for (const id of ['in-dead-1', 'in-bulk-0119']) expect((await readRecord(url, 'inbox', id))?.state).toBe('pending')
  })

  it('retries and discards sends of the outbox DLQ; refuses to discard an inbound record', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('x')
    await dashboard.until((f) => f.includes('inbound records cannot be discarded'), 'the refusal')
    dashboard.press('4', 'r')
    await dashboard.until((f) => f.includes('? Retry dead send out-dead-1 (chat chat-a)?'), 'the retry question')
    dashboard.press(KEYS.enter)
    await dashboard.until(
      (f) => f.includes('✔ retried 1 of 1: out-dead-1') && !rowIds(f, 'Outbox dead letters').includes('out-dead-1'),
      'retried',
    )
    expect(await readRecord(url, 'outbox', 'out-dead-1')).toMatchObject({ state: 'pending', attempts: 0 })
    dashboard.press('x')
    await dashboard.until(
      (f) => f.includes('? Discard dead send out-dead-2 (chat chat-b)? Its record is deleted') && f.includes('reason: █'),
      'the discard question',
    )
    dashboard.press(KEYS.enter)
    await dashboard.until((f) => f.includes('✔ discarded 1 of 1: out-dead-2') && /Outbox dead letters {2}none/.test(f), 'discarded')
    expect(await readRecord(url, 'outbox', 'out-dead-2')).toBeUndefined()
  })

  it('retries every unknown send (R), or discards them all (X)', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('out-unknown-1'), 'the first refresh')
    dashboard.press('5', 'R')
    await dashboard.until((f) => f.includes('? Retry ALL 2 unknown sends? They may have gone out already'), 'the retry-all question')
    dashboard.press(KEYS.enter)
    await dashboard.until((f) => f.includes('✔ retried 2 of 2') && /Unknown sends \(outcome unknown\) {2}none/.test(f), 'retried')
    expect(await readRecord(url, 'outbox', 'out-unknown-2')).toMatchObject({ state: 'pending' })

    const other = await seededSqlite(tempDir())
    const second = mountDashboard(other)
    await second.until((f) => f.includes('out-unknown-1'), 'the first refresh')
    second.press('5', 'X')
    await second.until((f) => f.includes('? Discard ALL 2 unknown sends? Their records are deleted for good.'), 'the discard-all question')
    second.press(KEYS.escape)
    await second.until((f) => f.includes('cancelled: nothing was changed'), 'cancelled')
    second.press('X', KEYS.enter)
    await second.until((f) => f.includes('✔ discarded 2 of 2'), 'discarded')
    expect(await readRecord(other, 'outbox', 'out-unknown-1')).toBeUndefined()
  })

  it('acts on the matching records of the page only while a filter is on', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('/', 'CRM', KEYS.enter)
    await dashboard.until((f) => f.includes('2 match "CRM" of 3'), 'filtered')
    dashboard.press('R')
    await dashboard.until((f) => f.includes('? Replay the 2 dead inbound records matching "CRM" on this page?'), 'the question')
    dashboard.press(KEYS.enter)
    await dashboard.until((f) => f.includes('✔ replayed 2 of 2: in-dead-1, in-dead-2'), 'replayed')
    expect((await readRecord(url, 'inbox', 'in-dead-3'))?.state).toBe('dead')
  })

  it('reports a record a bot changed meanwhile, and changes nothing else', async () => {
    const url = await seededSqlite(tempDir())
    const dashboard = mountDashboard(url)
    await dashboard.until((f) => f.includes('in-dead-1'), 'the first refresh')
    dashboard.press('p', 'r')
    await dashboard.until((f) => f.includes('? Replay dead inbound record in-dead-1'), 'the question, paused so the view keeps the record')
    const opened = await openBackend(url, { access: 'write' })
    try {
      const journal = opened.backend.journal(SCOPE)
      const [found] = await journal.read('inbox', ['in-dead-1'])
      const lease = { owner: 'bot-1', token: 9, expiresAt: Date.now() + 60_000, acquiredAt: Date.now() }
      await journal.write('operator.import', [
        { kind: 'inbox', record: { ...found!.record, state: 'processing', lease }, expectVersion: found!.version },
      ])
    } finally {
      await opened.close()
    }
    dashboard.press(KEYS.enter)
    await dashboard.until((f) => /✖ replay failed: .*in-dead-1.*processing/.test(f), 'the refusal of a record a bot took meanwhile')
    expect(await readRecord(url, 'inbox', 'in-dead-1')).toMatchObject({ state: 'processing', lease: { owner: 'bot-1' } })
  })
})
