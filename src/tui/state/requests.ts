/**
 * What an operator's key asks for, before anything runs: which service verb, on which records,
 * and the question the confirmation asks. Pure, so the reducer can build it and tests can read it.
 * Replay is the inbound verb, retry the outbound one; a send may also be discarded, an inbound
 * record may not: the library has no discard for the inbox (`discardSend` is for sends only), so a
 * dead inbound is replayed or left to retention, which purges it in its time.
 */
import type { RecordSummary, WorkKind } from '../../operator/records.js'
import type { DeadPanelId } from '../io/snapshot.js'

export type Verb = 'replay' | 'retry' | 'discard'

/** An action waiting for its confirmation, then running. */
export interface OperatorRequest {
  verb: Verb
  kind: WorkKind
  panel: DeadPanelId
  /** Named records, or every record of the panel's state. */
  target: { ids: string[] } | { state: 'dead' | 'unknown' }
  /** How many records it touches (for a whole panel: the index count when asked). */
  count: number
  /** The confirmation's question. */
  question: string
  /** Why, as the operator typed it into the confirmation; kept on each changed record. */
  reason?: string
}

/** What the operator pressed: r/R (replay or retry), x/X (discard); one record or the whole panel. */
export interface ActionAsk {
  intent: 'requeue' | 'discard'
  all: boolean
  panel: DeadPanelId
  /** The selected record (one), or undefined when the panel is empty. */
  selected: RecordSummary | undefined
  /** Set while a text filter is on: "all" then means the matching records of the page shown. */
  filter: { text: string; records: RecordSummary[] } | undefined
  /** Records of the panel's state, from the index counts. */
  count: number
}

const NOUNS: Record<DeadPanelId, [one: string, many: string]> = {
  inboxDead: ['dead inbound record', 'dead inbound records'],
  outboxDead: ['dead send', 'dead sends'],
  unknown: ['unknown send', 'unknown sends'],
}

/** The request an ask makes, or why there is none (a sentence for the message line). */
export function requestFor(ask: ActionAsk): { request: OperatorRequest } | { refusal: string } {
  const kind: WorkKind = ask.panel === 'inboxDead' ? 'inbox' : 'outbox'
  if (ask.intent === 'discard' && kind === 'inbox') {
    return { refusal: 'inbound records cannot be discarded: replay it (r), or leave it to retention' }
  }
  const verb: Verb = ask.intent === 'discard' ? 'discard' : kind === 'inbox' ? 'replay' : 'retry'
  const [one, many] = NOUNS[ask.panel]
  const Verb = verb[0]!.toUpperCase() + verb.slice(1)
  const warning =
    verb === 'discard'
      ? ' Their records are deleted for good.'
      : ask.panel === 'unknown'
        ? ' They may have gone out already: a chat may get one twice.'
        : ''
  if (!ask.all) {
    if (!ask.selected) return { refusal: `no ${one} selected` }
    const record = ask.selected
    const single =
      verb === 'discard'
        ? ' Its record is deleted for good.'
        : ask.panel === 'unknown'
          ? ' It may have gone out already: the chat may get it twice.'
          : ' It runs again with a fresh budget.'
    return {
      request: {
        verb,
        kind,
        panel: ask.panel,
        target: { ids: [record.id] },
        count: 1,
        question: `${Verb} ${one} ${record.id} (chat ${record.chatId})?${single}`,
      },
    }
  }
  if (ask.filter) {
    const ids = ask.filter.records.map((record) => record.id)
    if (ids.length === 0) return { refusal: `no ${many} match "${ask.filter.text}" on this page` }
    const noun = ids.length === 1 ? one : many
    return {
      request: {
        verb,
        kind,
        panel: ask.panel,
        target: { ids },
        count: ids.length,
        question: `${Verb} the ${ids.length} ${noun} matching "${ask.filter.text}" on this page?${warning}`,
      },
    }
  }
  if (ask.count === 0) return { refusal: `no ${many} to ${verb}` }
  const state = ask.panel === 'unknown' ? 'unknown' : 'dead'
  return {
    request: {
      verb,
      kind,
      panel: ask.panel,
      target: { state },
      count: ask.count,
      question: `${Verb} ALL ${ask.count.toLocaleString('en')} ${ask.count === 1 ? one : many}?${warning}`,
    },
  }
}

/** "replayed", "retried", "discarded" */
export function pastTense(verb: Verb): string {
  return verb === 'replay' ? 'replayed' : verb === 'retry' ? 'retried' : 'discarded'
}
