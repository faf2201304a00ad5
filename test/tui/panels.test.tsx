/**
 * Each component on its own (props only), rendered with ink-testing-library from what a refresh
 * really read off a seeded SQLite journal: the counts, instances (live and gone), leases (live and
 * past expiry, counting down), both dead-letter queues and the unknown sends, the status and
 * message lines, a record's detail, the scope picker, the help.
 */
import { render } from 'ink-testing-library'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBackend, parseBackendUrl, type OpenedBackend } from '../../src/operator/gateway/open.js'
import { listScopes } from '../../src/operator/scopes.js'
import { showRecord } from '../../src/operator/show.js'
import { CountsPanel, type CountsPanelProps } from '../../src/tui/views/CountsPanel.js'
import { DeadLettersPanel } from '../../src/tui/views/DeadLettersPanel.js'
import { DetailView } from '../../src/tui/views/DetailView.js'
import { HelpBar, keysFor } from '../../src/tui/views/HelpBar.js'
import { HelpScreen } from '../../src/tui/views/HelpScreen.js'
import { KEY_HELP } from '../../src/tui/state/key-help.js'
import { InstancesPanel } from '../../src/tui/views/InstancesPanel.js'
import { LeasesPanel } from '../../src/tui/views/LeasesPanel.js'
import { MessageLine } from '../../src/tui/views/MessageLine.js'
import { ScopePicker } from '../../src/tui/views/ScopePicker.js'
import { StatusLine } from '../../src/tui/views/StatusLine.js'
import { readDeadPage } from '../../src/tui/io/dead-pages.js'
import { recordDetail } from '../../src/tui/views/detail-lines.js'
import { DASHBOARD_LIMITS } from '../../src/tui/limits.js'
import type { RateSample } from '../../src/tui/state/rates.js'
import { takeSnapshot, type Snapshot } from '../../src/tui/io/snapshot.js'
import { themeFor } from '../../src/tui/views/theme.js'
import { OTHER_SCOPE, SCOPE, SEEDED } from '../fixtures/tui/seed.js'
import { joined, linesOf, seededSqlite, useTempDirs } from './helpers.js'

const tempDir = useTempDirs()
const theme = themeFor({})
const FIRST_PAGES = { inboxDead: undefined, outboxDead: undefined, unknown: undefined }
let opened: OpenedBackend
let snap: Snapshot

beforeAll(async () => {
  const url = await seededSqlite(tempDir(), { scopes: [SCOPE, OTHER_SCOPE] })
  opened = await openBackend(url)
  snap = await takeSnapshot(opened.backend, { scope: SCOPE, filter: '', pages: FIRST_PAGES })
})
afterAll(() => opened?.close())

const row = { index: 0, id: null }
const frameOf = (element: React.ReactElement) => {
  const instance = render(element)
  const frame = instance.lastFrame() ?? ''
  instance.unmount()
  return frame
}
const fits = (frame: string, width: number) => linesOf(frame).every((line) => line.length <= width)

describe('a refresh on SQLite', () => {
  it('reads counts from the indexes, every instance, the leases soonest first, and first pages of the dead letters', () => {
    expect(snap.counts.inbox).toEqual({ pending: 1, processing: 2, done: 1, failed: 1, dead: 3 })
    expect(snap.counts.outbox).toEqual({ pending: 1, sending: 1, sent: 1, failed: 1, dead: 2, unknown: 2 })
    expect(snap.instances.map((i) => [i.instanceId, i.live])).toEqual([
      [SEEDED.instances.live, true],
      [SEEDED.instances.gone, false],
    ])
    expect(snap.leases.map((l) => l.id)).toEqual(['in-stuck', 'out-sending', 'in-processing'])
    expect(snap.pages.inboxDead.records.map((r) => r.id)).toEqual(['in-dead-1', 'in-dead-2', 'in-dead-3'])
    expect(snap.pages.outboxDead.records.map((r) => r.id)).toEqual(['out-dead-1', 'out-dead-2'])
    expect(snap.pages.unknown.records.map((r) => r.id)).toEqual(['out-unknown-1', 'out-unknown-2'])
  })

  it('filters every list by text (id, chat, error code or message, owner, host)', async () => {
    const filtered = await takeSnapshot(opened.backend, { scope: SCOPE, filter: 'CRM', pages: FIRST_PAGES })
    expect(filtered.pages.inboxDead.records.map((r) => r.id)).toEqual(['in-dead-1', 'in-dead-2'])
    expect(filtered.pages.outboxDead.records).toEqual([])
    expect(filtered.counts).toEqual(snap.counts)
    const byOwner = await takeSnapshot(opened.backend, { scope: SCOPE, filter: 'bot-9', pages: FIRST_PAGES })
    expect(byOwner.leases.map((l) => l.id)).toEqual(['in-stuck'])
    const byHost = await takeSnapshot(opened.backend, { scope: SCOPE, filter: 'host-2', pages: FIRST_PAGES })
    expect(byHost.instances.map((i) => i.instanceId)).toEqual([SEEDED.instances.gone])
  })
})

describe('a filtered page on a long dead-letter queue', () => {
  it('reads at most filterScanMax records a refresh, says so, and reads on from where it stopped', async () => {
    const url = await seededSqlite(tempDir(), { extraDead: DASHBOARD_LIMITS.filterScanMax + 100 })
    const long = await openBackend(url)
    try {
      const journal = long.backend.journal(SCOPE)
      const lane = { kind: 'inbox' as const, state: 'dead' }
      const first = await readDeadPage(journal, lane, 'in-dead-3')
      // in-dead-3 is third in time order and matches; the rest of the bound is read looking for more.
      expect(first).toMatchObject({ scanned: DASHBOARD_LIMITS.filterScanMax, scanLimited: true })
      expect(first.records.map((r) => r.id)).toEqual(['in-dead-3'])
      const last = await readDeadPage(journal, lane, 'in-bulk-2099', first.next!)
      expect(last.records.map((r) => r.id)).toEqual(['in-bulk-2099'])
      expect(last).toMatchObject({ next: null, scanLimited: false })
      const plain = await readDeadPage(journal, lane, '')
      expect(plain).toMatchObject({ scanned: DASHBOARD_LIMITS.deadPageSize, scanLimited: false })
      expect(plain.records).toHaveLength(DASHBOARD_LIMITS.deadPageSize)
      expect(plain.next).not.toBeNull()
    } finally {
      await long.close()
    }
  })
})

describe('components', () => {
  it('CountsPanel: records per state, the purge backlog, rates in and out, a sparkline; one line per journal on a short terminal', () => {
    const history: RateSample[] = [1, 4, 2, 8].map((n, i) => ({ at: i, inboxIn: n / 2, inboxDone: n, outboxIn: 1, outboxSent: n }))
    const backlog = { inbox: 1_200, outbox: 3, capped: false }
    const counts = (lines: number, width: number, purgeBacklog: CountsPanelProps['purgeBacklog'] = backlog) => (
      <CountsPanel
        counts={snap.counts}
        oldestPendingMs={snap.oldestPendingMs}
        purgeBacklog={purgeBacklog}
        history={history}
        lines={lines}
        width={width}
        theme={theme}
      />
    )
    const [inbox, inboxRates, outbox, outboxRates] = linesOf(frameOf(counts(4, 160)))
    expect(inbox).toMatch(/^inbox\s+pending 1 {2}processing 2 {2}done 1 {2}failed 1 {2}dead 3 {2}.*purge backlog 1,200/)
    expect(inboxRates).toContain('in 4.0/s  done 8.0/s  ▂▅▃█')
    expect(outbox).toMatch(/^outbox\s+pending 1 {2}sending 1 {2}sent 1 {2}failed 1 {2}dead 2 {2}unknown 2.*purge backlog 3/)
    expect(outboxRates).toContain('in 1.0/s  sent 8.0/s')
    expect(linesOf(frameOf(counts(4, 160, { ...backlog, capped: true })))[0]).toContain('purge backlog ≥1,200')
    expect(frameOf(counts(4, 160, null))).not.toContain('purge backlog')
    const short = frameOf(counts(2, 80))
    expect(linesOf(short)).toHaveLength(2)
    expect(fits(short, 80)).toBe(true)
    const empty = frameOf(
      <CountsPanel
        counts={undefined}
        oldestPendingMs={undefined}
        purgeBacklog={undefined}
        history={[]}
        lines={4}
        width={80}
        theme={theme}
      />,
    )
    expect(empty).toContain('pending -')
    expect(empty).toContain('in -  done -')
    expect(empty).not.toContain('purge backlog')
  })

  it('InstancesPanel: live ones with host, pid, heartbeat age and counters; one whose heartbeat stopped as gone', () => {
    const frame = frameOf(
      <InstancesPanel
        title="Instances"
        number={1}
        instances={snap.instances}
        filter=""
        row={{ index: 1, id: SEEDED.instances.gone }}
        focused
        height={4}
        width={80}
        now={snap.at}
        theme={theme}
      />,
    )
    const [title, live, gone] = linesOf(frame)
    expect(title).toMatch(/^▶ 1 Instances {2}1 live · 1 gone \(✖\)/)
    expect(live).toMatch(/^ {2}● live host-1\/support\/default\s+host-1:4242\s+beat 1s\s+in 200 out 180 d/)
    expect(gone).toMatch(/^› ✖ gone host-2\/support\/default\s+host-2:5151\s+beat 2m 0s\s+in 7/)
    expect(fits(frame, 80)).toBe(true)
    expect(
      frameOf(
        <InstancesPanel
          title="Instances"
          number={1}
          instances={[]}
          filter=""
          row={row}
          focused={false}
          height={2}
          width={80}
          now={0}
          theme={theme}
        />,
      ),
    ).toContain('no heartbeat: no bot running in this scope')
    // Killed with kill -9 twenty seconds ago: its record has not expired, but a beat is late.
    const killed = { ...snap.instances[0]!, lastBeatAt: snap.at - 20_000, startedAt: snap.at - 20_000 }
    const late = frameOf(
      <InstancesPanel
        title="Instances"
        number={1}
        instances={[killed]}
        filter=""
        row={row}
        focused={false}
        height={2}
        width={80}
        now={snap.at}
        theme={theme}
      />,
    )
    expect(late).toMatch(/Instances {2}0 live · 1 silent/)
    expect(late).toMatch(/◌ late\s+host-1\/support\/default\s+host-1:4242\s+silent 20s/)
    expect(fits(late, 80)).toBe(true)
    expect(
      frameOf(
        <InstancesPanel
          title="Instances"
          number={1}
          instances={[]}
          filter="zz"
          row={row}
          focused={false}
          height={2}
          width={80}
          now={0}
          theme={theme}
        />,
      ),
    ).toContain('none match "zz"')
  })

  it('LeasesPanel: record, kind, owner, fencing token, expiry counting down; past expiry marked', () => {
    const at = (now: number) =>
      frameOf(
        <LeasesPanel
          title="Active leases"
          number={2}
          leases={snap.leases}
          filter=""
          row={{ index: 0, id: 'inbox/in-stuck' }}
          focused={false}
          height={4}
          width={80}
          now={now}
          theme={theme}
        />,
      )
    const frame = at(snap.at)
    const [title, stuck, sending, processing] = linesOf(frame)
    expect(title).toMatch(/^ {2}2 Active leases {2}3 · 1 past expiry \(!\)/)
    expect(stuck).toMatch(/^· inbox\s+in-stuck\s+chat-d\s+bot-9\s+token 4\s+! expired 30s ago$/)
    expect(sending).toMatch(/^ {2}outbox out-sending\s+chat-c\s+bot-1\s+token 3\s+expires in (5m 0s|4m 59s)$/)
    expect(processing).toMatch(/^ {2}inbox\s+in-processing\s+chat-a\s+bot-1\s+token 7\s+expires in (10m 0s|9m 59s)$/)
    const later = linesOf(at(snap.at + 65_000))
    expect(later[1]).toMatch(/! expired 1m 3[45]s ago$/)
    expect(later[2]).toMatch(/expires in 3m 5[45]s$/)
    expect(fits(frame, 80)).toBe(true)
  })

  it('DeadLettersPanel: both DLQs and the unknown sends with chat, attempts, age and last error', () => {
    const inbox = frameOf(
      <DeadLettersPanel
        number={3}
        title="Inbox dead letters"
        page={snap.pages.inboxDead}
        total={3}
        pagesBefore={0}
        filter=""
        row={{ index: 1, id: 'in-dead-2' }}
        focused
        height={5}
        width={100}
        now={snap.at}
        theme={theme}
      />,
    )
    const lines = linesOf(inbox)
    expect(lines[0]).toMatch(/^▶ 3 Inbox dead letters {2}3$/)
    expect(lines[1]).toMatch(/^ {2}in-dead-1\s+chat-a\s+5×\s+(2h 0m|1h 59m) CRM_REFUSED: the CRM refused the lead$/)
    expect(lines[2]).toMatch(/^› in-dead-2\s+chat-b\s+5×\s+(10m 0s|9m 59s) ETIMEDOUT: the CRM timed out\s*$/)
    expect(lines[3]).toMatch(/^ {2}in-dead-3\s+chat-c\s+5×\s+(1m 0s|59s) PAYLOAD: bad payload$/)
    const outbox = frameOf(
      <DeadLettersPanel
        number={4}
        title="Outbox dead letters"
        page={snap.pages.outboxDead}
        total={2}
        pagesBefore={0}
        filter=""
        row={row}
        focused={false}
        height={3}
        width={80}
        now={snap.at}
        theme={theme}
      />,
    )
    expect(outbox).toMatch(/out-dead-1\s+chat-a\s+6×\s+(15m 0s|14m 59s) UNSUPPORTED_CONTENT: unsuppor/)
    const unknown = frameOf(
      <DeadLettersPanel
        number={5}
        title="Unknown sends"
        page={snap.pages.unknown}
        total={2}
        pagesBefore={0}
        filter=""
        row={row}
        focused={false}
        height={3}
        width={80}
        now={snap.at}
        theme={theme}
      />,
    )
    // attempts counts failures: an unknown send made one provider call more (the one whose outcome was lost).
    expect(unknown).toMatch(/out-unknown-1\s+chat-a\s+2×\s+(1m 40s|1m 39s) -/)
    expect(unknown).toMatch(/out-unknown-2\s+chat-e/)
    const paged = frameOf(
      <DeadLettersPanel
        number={3}
        title="Inbox dead letters"
        page={{ ...snap.pages.inboxDead, next: { lane: 0, stateTime: 1, key: 'k' } }}
        total={20_123}
        pagesBefore={2}
        filter=""
        row={row}
        focused
        height={2}
        width={100}
        now={snap.at}
        theme={theme}
      />,
    )
    expect(linesOf(paged)[0]).toContain('20.1k in all · page 3 (pgdn: more): 3 shown')
    const filtered = frameOf(
      <DeadLettersPanel
        number={3}
        title="Inbox dead letters"
        page={{ ...snap.pages.inboxDead, scanLimited: true, scanned: 5_000 }}
        total={3}
        pagesBefore={0}
        filter="crm"
        row={row}
        focused
        height={2}
        width={100}
        now={snap.at}
        theme={theme}
      />,
    )
    expect(linesOf(filtered)[0]).toContain('3 match "crm" of 3 (read 5,000; pgdn reads on)')
    expect(fits(inbox, 100)).toBe(true)
    for (const frame of [outbox, unknown]) expect(fits(frame, 80)).toBe(true)
  })

  it('StatusLine: the backend without its password, scope, refresh rate or PAUSED, last refresh and its cost', () => {
    const label = parseBackendUrl('postgres://ops:s3cret@db.internal:5432/bots?tablePrefix=bm_').label
    const frame = frameOf(
      <StatusLine
        label={label}
        scope={SCOPE}
        refreshMs={2_000}
        paused={false}
        lastRefresh={{ at: new Date(2024, 0, 1, 9, 5, 7).getTime(), tookMs: 12.4 }}
        failing={false}
        width={100}
        theme={theme}
      />,
    )
    expect(frame).toMatch(new RegExp(`^● 09:05:07 \\(12ms\\) · every 2s · scope ${SCOPE} · postgres://ops:\\*\\*.*tablePrefix=bm_$`))
    expect(frame.length).toBe(100)
    expect(
      frameOf(
        <StatusLine
          label={label}
          scope="s"
          refreshMs={500}
          paused={false}
          lastRefresh={undefined}
          failing={false}
          width={100}
          theme={theme}
        />,
      ),
    ).toBe('● connecting… · every 500ms · scope s · postgres://ops:***@db.internal:5432/bots?tablePrefix=bm_')
    expect(frame).not.toContain('s3cret')
    const paused = frameOf(
      <StatusLine label={label} scope={undefined} refreshMs={2_000} paused lastRefresh={undefined} failing width={60} theme={theme} />,
    )
    expect(paused).toMatch(/^✖ connecting… · PAUSED · scope … · postgres/)
    expect(paused.length).toBeLessThanOrEqual(60)
    expect(paused).not.toContain('s3cret')
  })

  it('MessageLine: a failure with the next try, a confirmation, the filter being typed, progress, a notice', () => {
    const base = { failure: undefined, notice: undefined, filter: '', lastRefreshAt: undefined, clock: 10_000, width: 100, theme } as const
    const failing = frameOf(
      <MessageLine
        {...base}
        overlay={{ type: 'none' }}
        failure={{ message: 'connect ECONNREFUSED 127.0.0.1:1', at: 9_000, since: 5_000, count: 3, retryAt: 14_000 }}
        lastRefreshAt={new Date(2024, 0, 1, 9, 5, 7).getTime()}
      />,
    )
    expect(failing).toMatch(/^✖ refresh failed 3×, retry in 4s: connect ECONNREFUSED 127.0.0.1:1 · showing what was r/)
    const wide = frameOf(
      <MessageLine
        {...base}
        overlay={{ type: 'none' }}
        failure={{ message: 'down', at: 9_000, since: 9_000, count: 1, retryAt: 9_500 }}
        lastRefreshAt={undefined}
      />,
    )
    expect(wide).toBe('✖ refresh failed, retrying: down · nothing read yet')
    const request = {
      verb: 'replay' as const,
      kind: 'inbox' as const,
      panel: 'inboxDead' as const,
      target: { ids: ['a'] },
      count: 1,
      question: 'Replay dead inbound record a (chat c)?',
    }
    expect(frameOf(<MessageLine {...base} overlay={{ type: 'confirm', request, reason: 'CRM fixed' }} />)).toBe(
      '? Replay dead inbound record a (chat c)? reason: CRM fixed█',
    )
    expect(frameOf(<MessageLine {...base} overlay={{ type: 'filter', draft: 'crm' }} />)).toBe('filter: crm█  (enter applies, esc cancels)')
    expect(frameOf(<MessageLine {...base} overlay={{ type: 'running', request, done: 1_200, total: 20_000 }} />)).toBe(
      '… replaying 1,200/20.0k (esc stops)',
    )
    expect(frameOf(<MessageLine {...base} overlay={{ type: 'none' }} notice={{ tone: 'ok', text: 'replayed 1 of 1: a', at: 0 }} />)).toBe(
      '✔ replayed 1 of 1: a',
    )
    expect(frameOf(<MessageLine {...base} overlay={{ type: 'none' }} filter="crm" />)).toBe('filter "crm" on every list (esc clears)')
  })

  it('MessageLine at 80 columns wraps a question, an outcome and a failure whole; a reason too long keeps its end', () => {
    const base = { failure: undefined, notice: undefined, filter: '', lastRefreshAt: undefined, clock: 10_000, width: 80, theme } as const
    const question = 'Retry ALL 1,234 sends of outcome unknown? They may have gone out already: a chat may get one twice.'
    const request = {
      verb: 'retry' as const,
      kind: 'outbox' as const,
      panel: 'unknown' as const,
      target: { state: 'unknown' as const },
      count: 1_234,
      question,
    }
    const asked = frameOf(<MessageLine {...base} overlay={{ type: 'confirm', request, reason: 'provider confirmed' }} />)
    expect(linesOf(asked).length).toBe(2)
    expect(fits(asked, 80)).toBe(true)
    expect(joined(asked)).toBe(`? ${question} reason: provider confirmed█`)
    const outcome =
      'replayed 3 of 3: in-dead-1, in-dead-2, in-dead-3; no instance is beating in this scope, so nothing picks them up until a bot starts'
    const done = frameOf(<MessageLine {...base} overlay={{ type: 'none' }} notice={{ tone: 'ok', text: outcome, at: 0 }} />)
    expect(fits(done, 80)).toBe(true)
    expect(joined(done)).toBe(`✔ ${outcome}`)
    const failure = {
      message: 'getaddrinfo ENOTFOUND db.internal.example.com (while reading the inbox counts of scope acme/prod)',
      at: 9_000,
      since: 5_000,
      count: 2,
      retryAt: 14_000,
    }
    const failed = frameOf(<MessageLine {...base} overlay={{ type: 'none' }} failure={failure} />)
    expect(fits(failed, 80)).toBe(true)
    expect(joined(failed)).toContain(failure.message)
    // A reason typed past the lines the message may take: the question's start and the typing point stay.
    const long = frameOf(<MessageLine {...base} overlay={{ type: 'confirm', request, reason: 'x'.repeat(190) + ' the end' }} />)
    expect(linesOf(long)).toHaveLength(DASHBOARD_LIMITS.messageLinesMax)
    expect(fits(long, 80)).toBe(true)
    expect(linesOf(long)[0]).toMatch(/^\? Retry ALL 1,234 sends/)
    expect(linesOf(long).at(-1)).toMatch(/^….* the end█$/)
  })

  it("DetailView: the show service's record with why it is not running, wrapped and scrolled", async () => {
    const [shown] = await showRecord(opened.backend.journal(SCOPE), 'in-dead-1', ['inbox'], snap.at)
    const content = recordDetail(shown!, snap.at)
    const detail = {
      type: 'detail' as const,
      target: { panel: 'inboxDead' as const, kind: 'inbox' as const, id: 'in-dead-1' },
      content,
      error: undefined,
      offset: 0,
    }
    const frame = frameOf(<DetailView detail={detail} height={12} width={80} theme={theme} />)
    const lines = linesOf(frame)
    expect(lines[0]).toMatch(/^▶ inbound record in-dead-1 \(version 1\) {2}\[1-11 of \d+\]$/)
    expect(lines[1]).toBe('id          in-dead-1')
    expect(lines[2]).toBe('state       dead')
    expect(lines[3]).toMatch(/^why {9}dead since .* after 5 run\(s\): the CRM refused$/)
    expect(lines[4]).toMatch(/^ {12}\S/)
    expect(fits(frame, 80)).toBe(true)
    const scrolled = frameOf(<DetailView detail={{ ...detail, offset: 100 }} height={12} width={80} theme={theme} />)
    expect(scrolled).toContain('"text": "text of in-dead-1"')
    expect(frameOf(<DetailView detail={{ ...detail, content: undefined }} height={3} width={80} theme={theme} />)).toContain('reading…')
    expect(
      frameOf(<DetailView detail={{ ...detail, content: undefined, error: 'no inbox record "x"' }} height={3} width={80} theme={theme} />),
    ).toContain('✖ no inbox record "x"')
  })

  it('ScopePicker: every scope with its totals, the shown one marked', async () => {
    const scopes = await listScopes(opened.backend)
    const frame = frameOf(
      <ScopePicker
        picker={{ type: 'scopes', scopes, index: 1, error: undefined, required: true }}
        current={SCOPE}
        height={4}
        width={100}
        theme={theme}
      />,
    )
    const lines = linesOf(frame)
    expect(lines[0]).toBe('▶ Scopes · the backend holds several scopes: choose one')
    expect(lines[1]).toMatch(/^ {2}acme\/prod\/sales\/default\s+inbox 8\s+outbox 8\s+dead 5\s+instances 2$/)
    expect(lines[2]).toMatch(/^› acme\/prod\/support\/default \(shown\)\s+inbox 8/)
    expect(
      frameOf(
        <ScopePicker
          picker={{ type: 'scopes', scopes: undefined, index: 0, error: 'down', required: false }}
          current={SCOPE}
          height={3}
          width={80}
          theme={theme}
        />,
      ),
    ).toContain('✖ down (r reads again)')
  })

  it('HelpScreen at 80×24 (15 lines for it): taller than that, it says more follows, and scrolling reaches every key and the legend', () => {
    const at = (offset: number) => frameOf(<HelpScreen offset={offset} height={15} width={80} theme={theme} />)
    const first = linesOf(at(0))
    expect(first.length).toBeLessThanOrEqual(15)
    expect(first.at(-1)).toBe('↓ more: ↑↓ jk scroll')
    const seen = new Set<string>()
    for (let offset = 0; offset < KEY_HELP.length; offset++) for (const line of linesOf(at(offset))) seen.add(line)
    const all = [...seen].join(' ')
    for (const [, what] of KEY_HELP) expect(all.replace(/\s+/g, ' ')).toContain(what.split(' ').slice(0, 3).join(' '))
    const last = at(KEY_HELP.length - 1)
    expect(linesOf(last)[0]).toBe(`Keys (${KEY_HELP.length - 1} above: ↑ k)`)
    expect(joined(last)).toContain('Actions go through the same services as botmesh replay / retry / discard, and leave an audit entry.')
    expect(fits(last, 80)).toBe(true)
  })

  it('HelpScreen and HelpBar: every key, and the keys that act on the focused panel', () => {
    const help = frameOf(<HelpScreen offset={0} height={30} width={80} theme={theme} />)
    for (const text of [
      'move between panels',
      'replay the selected inbound record',
      'discard the selected send',
      'filter every list',
      'pause / resume',
      'switch scope',
      'quit',
    ])
      expect(help).toContain(text)
    expect(fits(help, 80)).toBe(true)
    expect(joined(help)).toContain('Actions go through the same services as botmesh replay / retry / discard, and leave an audit entry.')
    const bar = (focus: Parameters<typeof HelpBar>[0]['focus'], overlay: Parameters<typeof HelpBar>[0]['overlay'] = 'none') =>
      frameOf(<HelpBar overlay={overlay} focus={focus} detailPanel={undefined} paused={false} width={80} theme={theme} />)
    expect(linesOf(bar('inboxDead'))[0]).toBe('r/R replay one/all  ⏎ open  / filter  p pause screen  s scope')
    expect(linesOf(bar('outboxDead'))[0]).toBe('r/R retry  x/X discard one/all  ⏎ open  / filter  p pause screen  s scope')
    expect(linesOf(bar('leases'))[0]).toBe('⏎ open  / filter  p pause screen  s scope')
    expect(linesOf(bar('leases'))[1]).toBe('⇥ ←→ 1-5 panel  ↑↓ jk row  pgdn pgup page  ? all keys  q quit')
    expect(linesOf(bar('leases', 'confirm'))[0]).toBe('type why (kept on each record)  enter confirm  esc cancel')
    // On a narrow terminal each line wraps between keys, none cut.
    const narrow = frameOf(<HelpBar overlay="none" focus="outboxDead" detailPanel={undefined} paused={true} width={40} theme={theme} />)
    expect(fits(narrow, 40)).toBe(true)
    expect(linesOf(narrow).length).toBeGreaterThan(2)
    expect(joined(narrow).replace(/ {2}/g, ' ')).toBe(keysFor('none', 'outboxDead', undefined, true).join(' ').replace(/ {2}/g, ' '))
    expect(linesOf(narrow)).toContain('r/R retry  x/X discard one/all  ⏎ open')
  })
})
