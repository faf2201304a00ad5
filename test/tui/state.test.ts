/**
 * The dashboard's state without Ink (docs/architecture.md: a reducer keeps the state, hooks fetch it): the reducer, the effects its events ask for,
 * the key bindings, the layout, the rates and the requests, all pure.
 */
import { describe, expect, it } from 'vitest'
import type { InstanceView, LeaseView } from '../../src/operator/instances.js'
import type { RecordSummary } from '../../src/operator/records.js'
import type { RequestOutcome } from '../../src/tui/io/run-request.js'
import { effectOf } from '../../src/tui/state/effects.js'
import { columnWidths, compact, fit, fitMiddle, rate, row, sparkline, wrap, wrapField } from '../../src/tui/views/format.js'
import { keyEvent, plainKey, splitKeys } from '../../src/tui/io/keys.js'
import { KEY_HELP } from '../../src/tui/state/key-help.js'
import { panelAreaLines, panelHeights, windowStart } from '../../src/tui/views/layout.js'
import { DASHBOARD_LIMITS } from '../../src/tui/limits.js'
import { advanceRates } from '../../src/tui/state/rates.js'
import { requestFor } from '../../src/tui/state/requests.js'
import type { Snapshot } from '../../src/tui/io/snapshot.js'
import { PANELS, initialState, queryOf, reduce, type DashboardEvent, type DashboardState } from '../../src/tui/state/reduce.js'
import { themeFor } from '../../src/tui/views/theme.js'
import { instanceRowId, instanceRows, lostRunsOf, rememberLostRuns } from '../../src/tui/views/instance-rows.js'

const T0 = 1_700_000_000_000

function record(id: string, fields: Partial<RecordSummary> = {}): RecordSummary {
  return {
    kind: 'inbox',
    id,
    state: 'dead',
    chatId: `chat-${id}`,
    attempts: 5,
    createdAt: T0,
    updatedAt: T0,
    nextAttemptAt: null,
    lease: null,
    lastError: { message: `error of ${id}`, code: 'E', at: T0 },
    ...fields,
  }
}

function instance(id: string, fields: Partial<InstanceView> = {}): InstanceView {
  return {
    instanceId: id,
    botId: 'bot',
    host: 'h',
    pid: 1,
    startedAt: T0 - 10_000,
    lastBeatAt: T0,
    lastSweepAt: null,
    expiresAt: T0 + 15_000,
    metrics: {},
    live: true,
    status: 'live',
    lastBeatAgoMs: 0,
    uptimeMs: 10_000,
    ...fields,
  }
}

function lease(id: string, expiresInMs: number): LeaseView {
  return { kind: 'inbox', id, chatId: 'c', owner: 'bot-1', token: 3, expiresAt: T0 + expiresInMs, expiresInMs, attempts: 1 }
}

function snapshot(
  fields: Partial<Snapshot> & { inboxDead?: RecordSummary[]; outboxDead?: RecordSummary[]; unknown?: RecordSummary[]; next?: boolean } = {},
): Snapshot {
  const page = (records: RecordSummary[] = []) => ({
    records,
    next: fields.next ? { lane: 0, stateTime: T0 + 99, key: records.at(-1)?.id ?? 'x' } : null,
    scanned: records.length,
    scanLimited: false,
  })
  return {
    scope: 's',
    at: T0,
    tookMs: 3,
    counts: {
      inbox: { pending: 0, processing: 0, done: 0, failed: 0, dead: fields.inboxDead?.length ?? 0 },
      outbox: { pending: 0, sending: 0, sent: 0, failed: 0, dead: fields.outboxDead?.length ?? 0, unknown: fields.unknown?.length ?? 0 },
    },
    oldestPendingMs: { inbox: null, outbox: null },
    purgeBacklog: null,
    instances: [],
    lostRuns: [],
    leases: [],
    pages: {
      inboxDead: page(fields.inboxDead),
      outboxDead: page(fields.outboxDead?.map((r) => ({ ...r, kind: 'outbox' as const }))),
      unknown: page(fields.unknown?.map((r) => ({ ...r, kind: 'outbox' as const, state: 'unknown' }))),
    },
    perMinute: { heartbeats: null, journal: { windowMs: 60_000, failed: 0, dead: 0, capped: false } },
    errorGroups: { groups: [], scanned: 0, scanLimited: false },
    retryQueue: [],
    ...fields,
  }
}

/** Applies events in order; returns the final state and every effect asked for. */
function run(state: DashboardState, ...events: DashboardEvent[]): { state: DashboardState; effects: ReturnType<typeof effectOf>[] } {
  const effects: ReturnType<typeof effectOf>[] = []
  for (const event of events) {
    const next = reduce(state, event)
    const effect = effectOf(state, event, next)
    if (effect) effects.push(effect)
    state = next
  }
  return { state, effects }
}

function arrive(state: DashboardState, snap: Snapshot, receivedAt = T0): DashboardEvent {
  return { type: 'snapshot', snapshot: snap, query: queryOf(state)!, receivedAt }
}

function ready(snap: Snapshot = snapshot({ inboxDead: [record('a'), record('b'), record('c')] })): DashboardState {
  const scoped = reduce(initialState({ label: 'sqlite:x.db', refreshMs: 1_000, now: T0 }), { type: 'scopeResolved', scope: 's' })
  return reduce(scoped, arrive(scoped, snap))
}

describe('the reducer', () => {
  it('starts on the inbox dead letters with nothing read, then selects the first row of each panel a refresh fills', () => {
    const start = initialState({ label: 'l', refreshMs: 1_000, now: T0 })
    expect(start).toMatchObject({ focus: 'inboxDead', scope: undefined, snapshot: undefined, paused: false, filter: '' })
    expect(queryOf(start)).toBeUndefined()
    const state = ready(snapshot({ inboxDead: [record('a'), record('b')], instances: [instance('i-1')], leases: [lease('l-1', 5_000)] }))
    expect(state.rows.inboxDead).toEqual({ index: 0, id: 'a' })
    expect(state.rows.instances).toEqual({ index: 0, id: 'i-1' })
    expect(state.rows.leases).toEqual({ index: 0, id: 'inbox/l-1' })
    expect(state.rows.unknown).toEqual({ index: 0, id: null })
  })

  it('moves focus with wrap-around and by number, and rows within bounds', () => {
    let state = ready()
    state = run(state, { type: 'focusNext' }, { type: 'focusNext' }, { type: 'focusNext' }).state
    expect(state.focus).toBe('instances')
    state = reduce(state, { type: 'focusPrev' })
    expect(state.focus).toBe('unknown')
    state = reduce(state, { type: 'focus', panel: 'inboxDead' })
    state = run(state, { type: 'moveRow', by: 1 }, { type: 'moveRow', by: 5 }).state
    expect(state.rows.inboxDead).toEqual({ index: 2, id: 'c' })
    state = reduce(state, { type: 'moveRowTo', to: 'first' })
    expect(state.rows.inboxDead).toEqual({ index: 0, id: 'a' })
    state = reduce(state, { type: 'moveRowTo', to: 'last' })
    expect(state.rows.inboxDead.id).toBe('c')
  })

  it('keeps the selection on its record across refreshes, and on the same position when the record left', () => {
    let state = reduce(ready(), { type: 'moveRow', by: 1 })
    expect(state.rows.inboxDead.id).toBe('b')
    state = reduce(state, arrive(state, snapshot({ inboxDead: [record('z'), record('a'), record('b'), record('c')] })))
    expect(state.rows.inboxDead).toEqual({ index: 2, id: 'b' })
    // b was replayed: the row at its position (c) is selected, so the next one is one key away.
    state = reduce(state, arrive(state, snapshot({ inboxDead: [record('z'), record('a'), record('c')] })))
    expect(state.rows.inboxDead).toEqual({ index: 2, id: 'c' })
    state = reduce(state, arrive(state, snapshot({ inboxDead: [record('z')] })))
    expect(state.rows.inboxDead).toEqual({ index: 0, id: 'z' })
  })

  it('ignores a refresh that answers another query (before a scope switch, a filter, a page turn) and any while paused', () => {
    const state = ready()
    const stale = reduce(state, {
      type: 'snapshot',
      snapshot: snapshot({ inboxDead: [record('q')] }),
      query: { ...queryOf(state)!, filter: 'old' },
      receivedAt: T0 + 1,
    })
    expect(stale).toBe(state)
    const paused = reduce(state, { type: 'togglePause' })
    expect(reduce(paused, arrive(paused, snapshot({ inboxDead: [record('q')] })))).toBe(paused)
    const resumed = run(paused, { type: 'togglePause' })
    expect(resumed.state.paused).toBe(false)
    expect(resumed.effects).toEqual([{ type: 'refresh' }])
  })

  it('counts failed refreshes in a row and forgets them on the next good one', () => {
    let state = ready()
    state = run(
      state,
      { type: 'refreshFailed', message: 'ECONNREFUSED', at: T0 + 1_000, retryInMs: 1_000 },
      { type: 'refreshFailed', message: 'ECONNREFUSED', at: T0 + 3_000, retryInMs: 2_000 },
    ).state
    expect(state.failure).toEqual({ message: 'ECONNREFUSED', at: T0 + 3_000, since: T0 + 1_000, count: 2, retryAt: T0 + 5_000 })
    expect(state.snapshot).toBeDefined()
    state = reduce(state, arrive(state, snapshot({ at: T0 + 5_000 }), T0 + 5_000))
    expect(state.failure).toBeUndefined()
  })

  it('keeps at most historyMax rate samples however long it runs', () => {
    let state = ready(snapshot())
    for (let n = 1; n <= DASHBOARD_LIMITS.historyMax + 50; n++) {
      const snap = snapshot({ at: T0 + n * 1_000 })
      snap.counts.inbox.done = n * 3
      state = reduce(state, arrive(state, snap, T0 + n * 1_000))
    }
    expect(state.history).toHaveLength(DASHBOARD_LIMITS.historyMax)
    expect(state.history.at(-1)).toMatchObject({ inboxDone: 3 })
  })

  it('fades a notice after noticeMs', () => {
    let state = reduce(ready(), { type: 'focus', panel: 'leases' })
    state = reduce(state, { type: 'act', intent: 'requeue', all: false })
    expect(state.notice?.text).toMatch(/dead letters and unknown sends/)
    expect(reduce(state, { type: 'tick', at: T0 + 1_000 }).notice).toBeDefined()
    expect(reduce(state, { type: 'tick', at: T0 + DASHBOARD_LIMITS.noticeMs }).notice).toBeUndefined()
  })
})

describe('actions in the reducer', () => {
  const outcome = (state: DashboardState, fields: Partial<RequestOutcome> = {}): RequestOutcome => {
    if (state.overlay.type !== 'running') throw new Error('not running')
    return {
      request: state.overlay.request,
      attempted: 1,
      succeeded: 1,
      failed: 0,
      changed: ['a'],
      firstError: undefined,
      cancelled: false,
      ...fields,
    }
  }

  it("the confirmation takes the operator's reason, which travels with the request to the services", () => {
    const asked = reduce(ready(), { type: 'act', intent: 'requeue', all: false })
    const typed = ['CRM', ' fixedx'].reduce((state, text) => reduce(state, { type: 'reasonInput', text }), asked)
    const erased = reduce(typed, { type: 'reasonErase' })
    expect(erased.overlay).toMatchObject({ type: 'confirm', reason: 'CRM fixed' })
    const running = run(erased, { type: 'confirm' })
    expect(running.state.overlay).toMatchObject({ type: 'running', request: { verb: 'replay', reason: 'CRM fixed' } })
    expect(running.effects).toEqual([{ type: 'run', request: expect.objectContaining({ reason: 'CRM fixed' }) }])
    // No reason typed: the request carries none (the dashboard's default is kept on the record).
    expect((reduce(asked, { type: 'confirm' }).overlay as { request: { reason?: string } }).request.reason).toBeUndefined()
  })

  it('asks before replaying the selected record, runs it on enter, reports and refreshes', () => {
    const asked = run(ready(), { type: 'act', intent: 'requeue', all: false })
    expect(asked.state.overlay).toMatchObject({
      type: 'confirm',
      request: { verb: 'replay', kind: 'inbox', target: { ids: ['a'] }, count: 1 },
    })
    expect(asked.effects).toEqual([])
    const confirmed = run(asked.state, { type: 'confirm' })
    expect(confirmed.state.overlay).toMatchObject({ type: 'running', done: 0, total: 1 })
    expect(confirmed.effects).toEqual([{ type: 'run', request: (asked.state.overlay as { request: unknown }).request }])
    const progressed = reduce(confirmed.state, { type: 'progress', done: 1, total: 1 })
    expect(progressed.overlay).toMatchObject({ done: 1 })
    const done = run(progressed, { type: 'requestDone', outcome: outcome(progressed), at: T0 })
    expect(done.state.overlay).toEqual({ type: 'none' })
    // No instance beats in this scope: the record waits until a bot runs, and the notice says so.
    expect(done.state.notice).toMatchObject({
      tone: 'ok',
      text: 'replayed 1 of 1: a · no live instance: nothing picks it up until a bot runs in this scope',
    })
    expect(done.effects).toEqual([{ type: 'refresh' }])
  })

  it('an action done while an instance beats in the scope carries no warning', () => {
    const running = run(
      ready(snapshot({ inboxDead: [record('a')], instances: [instance('i-1')] })),
      { type: 'act', intent: 'requeue', all: false },
      { type: 'confirm' },
    ).state
    const done = run(running, { type: 'requestDone', outcome: outcome(running), at: T0 })
    expect(done.state.notice).toMatchObject({ tone: 'ok', text: 'replayed 1 of 1: a' })
  })

  it('cancels on n (nothing runs) and stops a running action on esc', () => {
    const cancelled = run(ready(), { type: 'act', intent: 'requeue', all: false }, { type: 'cancel' })
    expect(cancelled.state.overlay).toEqual({ type: 'none' })
    expect(cancelled.state.notice?.text).toBe('cancelled: nothing was changed')
    expect(cancelled.effects).toEqual([])
    const running = run(ready(), { type: 'act', intent: 'requeue', all: true }, { type: 'confirm' }, { type: 'cancel' })
    expect(running.effects.at(-1)).toEqual({ type: 'cancelRun' })
    const failed = run(running.state, {
      type: 'requestDone',
      outcome: outcome(running.state, {
        failed: 1,
        succeeded: 0,
        changed: [],
        firstError: { id: 'a', code: 'CONCURRENT_CHANGE', message: 'changed' },
        cancelled: true,
      }),
      at: T0,
    })
    expect(failed.state.notice).toMatchObject({
      tone: 'error',
      text: 'replayed 0 of 1 (stopped before the rest); 1 failed, first a: changed (CONCURRENT_CHANGE)',
    })
  })

  it('acts on a whole panel: every record of the state, or the matching ones of the page while filtered', () => {
    const all = reduce(ready(), { type: 'act', intent: 'requeue', all: true })
    expect(all.overlay).toMatchObject({
      type: 'confirm',
      request: { target: { state: 'dead' }, count: 3, question: 'Replay ALL 3 dead inbound records?' },
    })
    let filtered = run(ready(), { type: 'filterStart' }, { type: 'filterInput', text: 'chat-b' }, { type: 'filterApply' }).state
    filtered = reduce(filtered, arrive(filtered, snapshot({ inboxDead: [record('b')] })))
    const some = reduce(filtered, { type: 'act', intent: 'requeue', all: true })
    expect(some.overlay).toMatchObject({
      type: 'confirm',
      request: { target: { ids: ['b'] }, count: 1, question: 'Replay the 1 dead inbound record matching "chat-b" on this page?' },
    })
  })

  it('retries and discards sends; refuses to discard inbound records and to act outside the dead-letter panels', () => {
    const snap = snapshot({ outboxDead: [record('k1')], unknown: [record('u1')] })
    const retry = reduce(reduce(ready(snap), { type: 'focus', panel: 'outboxDead' }), { type: 'act', intent: 'requeue', all: false })
    expect(retry.overlay).toMatchObject({ request: { verb: 'retry', kind: 'outbox', target: { ids: ['k1'] } } })
    const discardAll = reduce(reduce(ready(snap), { type: 'focus', panel: 'unknown' }), { type: 'act', intent: 'discard', all: true })
    expect(discardAll.overlay).toMatchObject({
      request: {
        verb: 'discard',
        target: { state: 'unknown' },
        count: 1,
        question: 'Discard ALL 1 unknown send? Their records are deleted for good.',
      },
    })
    const inbox = reduce(ready(), { type: 'act', intent: 'discard', all: false })
    expect(inbox.overlay.type).toBe('none')
    expect(inbox.notice?.text).toMatch(/inbound records cannot be discarded/)
    const empty = reduce(reduce(ready(), { type: 'focus', panel: 'unknown' }), { type: 'act', intent: 'requeue', all: true })
    expect(empty.notice?.text).toBe('no unknown sends to retry')
  })

  it('acts from a detail on the record it shows', () => {
    const opened = run(ready(), { type: 'moveRow', by: 2 }, { type: 'open' })
    expect(opened.effects).toEqual([{ type: 'loadDetail', target: { panel: 'inboxDead', kind: 'inbox', id: 'c' } }])
    const asked = reduce(opened.state, { type: 'act', intent: 'requeue', all: true })
    expect(asked.overlay).toMatchObject({ type: 'confirm', request: { target: { ids: ['c'] } } })
  })
})

describe('filter, pages, details and scopes in the reducer', () => {
  it('types, erases and applies a filter, resetting pages and selections; esc clears it', () => {
    const start = reduce(ready(), { type: 'moveRow', by: 2 })
    const typed = run(
      start,
      { type: 'filterStart' },
      { type: 'filterInput', text: 'crmx' },
      { type: 'filterErase' },
      { type: 'filterInput', text: '\x07' },
    )
    expect(typed.state.overlay).toEqual({ type: 'filter', draft: 'crm' })
    expect(typed.effects).toEqual([])
    const applied = run(typed.state, { type: 'filterApply' })
    expect(applied.state).toMatchObject({ filter: 'crm', overlay: { type: 'none' } })
    expect(applied.state.rows.inboxDead).toEqual({ index: 0, id: null })
    expect(applied.effects).toEqual([{ type: 'refresh' }])
    const long = run(start, { type: 'filterStart' }, { type: 'filterInput', text: 'x'.repeat(500) }).state
    expect((long.overlay as { draft: string }).draft).toHaveLength(DASHBOARD_LIMITS.filterLengthMax)
    const cleared = run(applied.state, { type: 'dismiss' })
    expect(cleared.state.filter).toBe('')
    expect(cleared.effects).toEqual([{ type: 'refresh' }])
  })

  it('turns pages of a dead-letter panel with a bounded cursor stack; moves ten rows elsewhere', () => {
    const state = ready(snapshot({ inboxDead: [record('a'), record('b')], next: true }))
    const next = run(state, { type: 'pageNext' })
    expect(next.state.pageStacks.inboxDead).toHaveLength(1)
    expect(queryOf(next.state)!.pages.inboxDead).toEqual({ lane: 0, stateTime: T0 + 99, key: 'b' })
    expect(next.effects).toEqual([{ type: 'refresh' }])
    const back = run(next.state, { type: 'pagePrev' })
    expect(back.state.pageStacks.inboxDead).toEqual([])
    expect(back.effects).toEqual([{ type: 'refresh' }])
    const last = ready(snapshot({ inboxDead: [record('a'), record('b')] }))
    expect(reduce(last, { type: 'pageNext' }).rows.inboxDead.id).toBe('b')
    let deep = ready(snapshot({ inboxDead: [record('a')], next: true }))
    for (let n = 0; n < DASHBOARD_LIMITS.pageStackMax + 5; n++) deep = reduce(deep, { type: 'pageNext' })
    expect(deep.pageStacks.inboxDead).toHaveLength(DASHBOARD_LIMITS.pageStackMax)
    const instances = reduce(
      reduce(ready(snapshot({ instances: Array.from({ length: 30 }, (_, n) => instance(`i-${n}`)) })), {
        type: 'focus',
        panel: 'instances',
      }),
      { type: 'pageNext' },
    )
    expect(instances.rows.instances.index).toBe(10)
  })

  it('opens an instance at once, a record once read; ignores a late answer for another record; scrolls within bounds', () => {
    const snap = snapshot({ inboxDead: [record('a')], instances: [instance('i-1', { metrics: { inboundJournaled: 12 } })] })
    const instanceDetail = run(reduce(ready(snap), { type: 'focus', panel: 'instances' }), { type: 'open' })
    expect(instanceDetail.effects).toEqual([])
    expect(instanceDetail.state.overlay).toMatchObject({ type: 'detail', target: { kind: 'instances', id: 'i-1' } })
    expect((instanceDetail.state.overlay as { content: { lines: string[] } }).content.lines.join('\n')).toMatch(/inboundJournaled\s+12/)
    const opened = reduce(ready(snap), { type: 'open' })
    const other = reduce(opened, {
      type: 'detailLoaded',
      target: { panel: 'inboxDead', kind: 'inbox', id: 'zzz' },
      content: { title: 'x', lines: [] },
    })
    expect(other).toBe(opened)
    let loaded = reduce(opened, {
      type: 'detailLoaded',
      target: { panel: 'inboxDead', kind: 'inbox', id: 'a' },
      content: { title: 't', lines: ['1', '2', '3'] },
    })
    loaded = run(loaded, { type: 'moveRow', by: 10 }).state
    expect(loaded.overlay).toMatchObject({ offset: 2 })
    loaded = reduce(loaded, { type: 'moveRow', by: -10 })
    expect(loaded.overlay).toMatchObject({ offset: 0 })
    expect(reduce(loaded, { type: 'close' }).overlay).toEqual({ type: 'none' })
    const failed = reduce(opened, { type: 'detailFailed', target: { panel: 'inboxDead', kind: 'inbox', id: 'a' }, message: 'gone' })
    expect(failed.overlay).toMatchObject({ error: 'gone' })
  })

  it('asks for a scope when several exist, cannot be closed until one is chosen, and starts afresh in it', () => {
    const start = initialState({ label: 'l', refreshMs: 1_000, now: T0 })
    const needed = run(start, { type: 'scopesNeeded' })
    expect(needed.state.overlay).toMatchObject({ type: 'scopes', required: true, scopes: undefined })
    expect(needed.effects).toEqual([{ type: 'loadScopes' }])
    expect(reduce(needed.state, { type: 'close' }).overlay.type).toBe('scopes')
    const summaries = [
      { scope: 'a/b/c/d', botId: 'c', inbox: 1, outbox: 2, dead: 0, instances: 1 },
      { scope: 'e/f/g/h', botId: 'g', inbox: 0, outbox: 0, dead: 0, instances: 0 },
    ]
    const chosen = run(needed.state, { type: 'scopesLoaded', scopes: summaries }, { type: 'moveRow', by: 1 }, { type: 'chooseScope' })
    expect(chosen.state).toMatchObject({ scope: 'e/f/g/h', overlay: { type: 'none' }, snapshot: undefined, history: [] })
    expect(chosen.effects).toEqual([{ type: 'refresh' }])
    const again = run(ready(), { type: 'scopesOpen' })
    expect(again.effects).toEqual([{ type: 'loadScopes' }])
    const switched = run(again.state, { type: 'scopesLoaded', scopes: summaries }, { type: 'chooseScope' })
    expect(switched.state.scope).toBe('a/b/c/d')
    const failed = run(again.state, { type: 'scopesFailed', message: 'down' }, { type: 'scopesOpen' })
    expect(failed.effects).toEqual([{ type: 'loadScopes' }])
  })

  it('quits on the quit event, and toggles the help', () => {
    expect(run(ready(), { type: 'quit' }).effects).toEqual([{ type: 'quit' }])
    const help = reduce(ready(), { type: 'help' })
    expect(help.overlay).toEqual({ type: 'help', offset: 0 })
    expect(reduce(help, { type: 'help' }).overlay).toEqual({ type: 'none' })
    // ↑ ↓ scroll it by its key entries, from the first to the last.
    expect(reduce(help, { type: 'moveRow', by: 1 }).overlay).toEqual({ type: 'help', offset: 1 })
    expect(reduce(help, { type: 'moveRow', by: -1 }).overlay).toEqual({ type: 'help', offset: 0 })
    expect(reduce(help, { type: 'moveRowTo', to: 'last' }).overlay).toEqual({ type: 'help', offset: KEY_HELP.length - 1 })
  })
})

describe('keys', () => {
  const state = ready()
  const key = (input: string, flags: Parameters<typeof plainKey>[0] = {}, on: DashboardState = state) =>
    keyEvent(on, input, plainKey(flags))

  it('bind the panels view', () => {
    expect(key('q')).toEqual({ type: 'quit' })
    expect(key('c', { ctrl: true })).toEqual({ type: 'quit' })
    expect(key('', { tab: true })).toEqual({ type: 'focusNext' })
    expect(key('', { tab: true, shift: true })).toEqual({ type: 'focusPrev' })
    expect(key('', { rightArrow: true })).toEqual({ type: 'focusNext' })
    expect(key('', { leftArrow: true })).toEqual({ type: 'focusPrev' })
    expect(key('4')).toEqual({ type: 'focus', panel: PANELS[3] })
    expect(key('', { downArrow: true })).toEqual({ type: 'moveRow', by: 1 })
    expect(key('k')).toEqual({ type: 'moveRow', by: -1 })
    expect(key('G')).toEqual({ type: 'moveRowTo', to: 'last' })
    expect(key('', { pageDown: true })).toEqual({ type: 'pageNext' })
    expect(key('[')).toEqual({ type: 'pagePrev' })
    expect(key('', { return: true })).toEqual({ type: 'open' })
    expect(key('r')).toEqual({ type: 'act', intent: 'requeue', all: false })
    expect(key('R')).toEqual({ type: 'act', intent: 'requeue', all: true })
    expect(key('x')).toEqual({ type: 'act', intent: 'discard', all: false })
    expect(key('X')).toEqual({ type: 'act', intent: 'discard', all: true })
    expect(key('/')).toEqual({ type: 'filterStart' })
    expect(key('p')).toEqual({ type: 'togglePause' })
    expect(key('s')).toEqual({ type: 'scopesOpen' })
    expect(key('?')).toEqual({ type: 'help' })
    expect(key('', { escape: true })).toEqual({ type: 'dismiss' })
    expect(key('z')).toBeUndefined()
  })

  it('bind the overlays: confirmation, filter line, detail, scopes, help, a running action', () => {
    const confirm = reduce(state, { type: 'act', intent: 'requeue', all: false })
    expect(key('', { return: true }, confirm)).toEqual({ type: 'confirm' })
    expect(key('', { escape: true }, confirm)).toEqual({ type: 'cancel' })
    // Letters are the reason: y, n and q included.
    expect(key('n', {}, confirm)).toEqual({ type: 'reasonInput', text: 'n' })
    expect(key('', { backspace: true }, confirm)).toEqual({ type: 'reasonErase' })
    expect(key('', { upArrow: true }, confirm)).toBeUndefined()
    const filter = reduce(state, { type: 'filterStart' })
    expect(key('q', {}, filter)).toEqual({ type: 'filterInput', text: 'q' })
    expect(key('', { backspace: true }, filter)).toEqual({ type: 'filterErase' })
    expect(key('', { return: true }, filter)).toEqual({ type: 'filterApply' })
    expect(key('', { escape: true }, filter)).toEqual({ type: 'close' })
    const detail = reduce(state, { type: 'open' })
    expect(key('q', {}, detail)).toEqual({ type: 'close' })
    expect(key('r', {}, detail)).toEqual({ type: 'act', intent: 'requeue', all: false })
    expect(key('j', {}, detail)).toEqual({ type: 'moveRow', by: 1 })
    expect(key('', { pageDown: true }, detail)).toEqual({ type: 'moveRow', by: 10 })
    const scopes = reduce(state, { type: 'scopesOpen' })
    expect(key('', { return: true }, scopes)).toEqual({ type: 'chooseScope' })
    expect(key('q', {}, scopes)).toEqual({ type: 'quit' })
    expect(key('r', {}, scopes)).toEqual({ type: 'scopesOpen' })
    expect(key('q', {}, reduce(state, { type: 'help' }))).toEqual({ type: 'close' })
    expect(key('j', {}, reduce(state, { type: 'help' }))).toEqual({ type: 'moveRow', by: 1 })
    expect(key('', { upArrow: true }, reduce(state, { type: 'help' }))).toEqual({ type: 'moveRow', by: -1 })
    const running = reduce(confirm, { type: 'confirm' })
    expect(key('q', {}, running)).toBeUndefined()
    expect(key('', { escape: true }, running)).toEqual({ type: 'cancel' })
    expect(key('c', { ctrl: true }, running)).toEqual({ type: 'quit' })
  })

  it('split a run of characters that arrived together into keys', () => {
    expect(splitKeys('4X', plainKey())).toEqual([
      ['4', plainKey()],
      ['X', plainKey({ shift: true })],
    ])
    expect(splitKeys('/a\r', plainKey()).map(([input, k]) => [input, k.return])).toEqual([
      ['/', false],
      ['a', false],
      ['', true],
    ])
    expect(splitKeys('\x1b[A', plainKey({ upArrow: true }))).toHaveLength(1)
    expect(splitKeys('é', plainKey())).toHaveLength(1)
  })
})

describe('layout, rates, requests and formatting', () => {
  it('shares the panel area: every title shows, the focused panel first, never more lines than there are', () => {
    const wanted = { instances: 3, leases: 2, inboxDead: 50, outboxDead: 50, unknown: 0 }
    const area = panelAreaLines(24)
    const heights = panelHeights(area, 'inboxDead', wanted)
    expect(Object.values(heights).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(area)
    expect(Object.values(heights).every((h) => h >= 1)).toBe(true)
    expect(heights.inboxDead).toBeGreaterThan(heights.outboxDead)
    expect(heights.unknown).toBe(1)
    const tall = panelHeights(100, 'leases', wanted)
    expect(tall).toEqual({ instances: 4, leases: 3, inboxDead: 46, outboxDead: 46, unknown: 1 })
    expect(panelHeights(3, 'leases', wanted)).toEqual({ instances: 0, leases: 3, inboxDead: 0, outboxDead: 0, unknown: 0 })
  })

  it('keeps the selected row in the window', () => {
    expect(windowStart(3, 2, 5)).toBe(0)
    expect(windowStart(50, 0, 5)).toBe(0)
    expect(windowStart(50, 10, 5)).toBe(7)
    expect(windowStart(50, 49, 5)).toBe(45)
    expect(windowStart(2, 0, 1)).toBe(0)
    expect(windowStart(2, 1, 1)).toBe(1)
    expect(windowStart(9, 3, 2)).toBe(2)
  })

  it('rates: done/sent from count deltas, in from heartbeats (uptime first, then between beats), counts going down are not negative', () => {
    const first = snapshot({
      at: T0,
      instances: [instance('i', { startedAt: T0 - 10_000, lastBeatAt: T0, metrics: { inboundJournaled: 100, outboxJournaled: 50 } })],
    })
    first.counts.inbox.done = 10
    const a = advanceRates(undefined, first)
    expect(a.sample).toBeUndefined()
    const second = snapshot({
      at: T0 + 2_000,
      instances: [
        instance('i', { startedAt: T0 - 10_000, lastBeatAt: T0 + 2_000, metrics: { inboundJournaled: 140, outboxJournaled: 50 } }),
      ],
    })
    second.counts.inbox.done = 30
    second.counts.outbox.sent = 0
    const b = advanceRates(a.memory, second)
    expect(b.sample).toEqual({ at: T0 + 2_000, inboxIn: 20, inboxDone: 10, outboxIn: 0, outboxSent: 0 })
    expect(a.memory.beats.i!.rates.inboundJournaled).toBe(10)
    const third = snapshot({ at: T0 + 3_000 })
    third.counts.inbox.done = 5
    third.counts.inbox.pending = 4
    expect(advanceRates(b.memory, third).sample).toMatchObject({ inboxDone: 0, inboxIn: 0 })
    expect(advanceRates(b.memory, third).memory.beats).toEqual({})
    // A live instance whose last beat is older than the work: the journal's growth is the better measure.
    const stale = snapshot({
      at: T0 + 4_000,
      instances: [instance('j', { startedAt: T0 - 10_000, lastBeatAt: T0, metrics: { inboundJournaled: 0 } })],
    })
    stale.counts.inbox.done = 45
    expect(advanceRates(advanceRates(undefined, { ...stale, at: T0 + 3_000, counts: third.counts }).memory, stale).sample).toMatchObject({
      inboxIn: 36,
    })
  })

  it('requests name what they touch', () => {
    const ask = {
      intent: 'requeue' as const,
      all: false,
      panel: 'unknown' as const,
      selected: record('u', { kind: 'outbox' }),
      filter: undefined,
      count: 4,
    }
    expect(requestFor(ask)).toEqual({
      request: {
        verb: 'retry',
        kind: 'outbox',
        panel: 'unknown',
        target: { ids: ['u'] },
        count: 1,
        question: 'Retry unknown send u (chat chat-u)? It may have gone out already: the chat may get it twice.',
      },
    })
    expect(requestFor({ ...ask, selected: undefined })).toEqual({ refusal: 'no unknown send selected' })
    expect(requestFor({ ...ask, all: true, filter: { text: 'zz', records: [] } })).toEqual({
      refusal: 'no unknown sends match "zz" on this page',
    })
  })

  it('formats fit the width', () => {
    expect([compact(12), compact(1_234), compact(12_345), compact(123_456), compact(1_234_567)]).toEqual([
      '12',
      '1,234',
      '12.3k',
      '123k',
      '1.23M',
    ])
    expect([rate(undefined), rate(0), rate(4.25), rate(1_234.4)]).toEqual(['-', '0/s', '4.3/s', '1,234/s'])
    expect(sparkline([0, 1, 2, 4, 8], 3)).toBe('▃▅█')
    expect(sparkline([0, 0], 5)).toBe('▁▁')
    expect(fit('abcdef', 4)).toBe('abc…')
    expect(fitMiddle('sqlite:/a/very/long/path/bot.db', 15)).toBe('sqlite:…/bot.db')
    const specs = [
      { min: 10, grow: 3 },
      { min: 6, grow: 1, max: 20 },
      { min: 3, align: 'right' as const },
      { min: 8, grow: 5 },
    ]
    for (const width of [40, 78, 118, 200]) {
      const widths = columnWidths(width, specs)
      expect(widths.reduce((a, b) => a + b, 0) + specs.length - 1).toBeLessThanOrEqual(width)
      expect(row(['a'.repeat(100), 'b\nc', '5×', 'e'.repeat(300)], widths, specs).length).toBeLessThanOrEqual(width)
    }
    expect(wrap('one two three', 7)).toEqual(['one two', 'three'])
    expect(wrapField(`${'why'.padEnd(11)} ${'word '.repeat(12).trim()}`, 40)).toEqual([
      'why         word word word word word',
      '            word word word word word',
      '            word word',
    ])
  })

  it('NO_COLOR turns every colour off', () => {
    expect(themeFor({}).tone('error')).toBe('red')
    expect(themeFor({ NO_COLOR: '' }).color).toBe(true)
    expect(themeFor({ NO_COLOR: '1' }).tone('error')).toBeUndefined()
  })
})

describe('runs that died', () => {
  it('are remembered after their successor stopped, while recent, newest told first, at most lostRunsMax', () => {
    const run = (pid: number, lastBeatAt = T0) => ({
      host: 'h',
      pid,
      startedAt: T0 - 60_000,
      lastBeatAt,
      inboxTakenBack: 2,
      outboxTakenBack: 1,
    })
    const lost = (pid: number, lastBeatAt = T0) => ({ instanceId: 'i1', run: run(pid, lastBeatAt), byPid: pid + 1 })
    const told = lostRunsOf([instance('i1', { pid: 11, previousRun: run(10) })])
    expect(told).toEqual([lost(10)])
    // The successor stopped: its record, and what it told, are gone from the journal; the dashboard keeps it.
    expect(rememberLostRuns(told, [], T0 + 1_000)).toEqual([lost(10)])
    expect(rememberLostRuns(told, [], T0 + DASHBOARD_LIMITS.lostRunShownMs)).toEqual([])
    expect(rememberLostRuns([lost(10)], [{ ...lost(10), run: { ...run(10), inboxTakenBack: 3 } }], T0)[0]!.run.inboxTakenBack).toBe(3)
    const many = Array.from({ length: DASHBOARD_LIMITS.lostRunsMax + 5 }, (_, n) => lost(100 + n))
    expect(rememberLostRuns(many, [lost(1)], T0)).toHaveLength(DASHBOARD_LIMITS.lostRunsMax)
    expect(rememberLostRuns(many, [lost(1)], T0)[0]).toEqual(lost(1))
    // Rows: the instance, then its lost run; a lost run whose instance is gone comes last.
    const rows = instanceRows([instance('i2')], [lost(10)])
    expect(rows.map(instanceRowId)).toEqual(['i2', 'i1 (pid 10 lost)'])
  })
})
