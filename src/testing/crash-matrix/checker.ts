/**
 * The crash matrix's verdict, from an oracle apart from the journal under test: the providers' own
 * logs of what the channel accepted, compared with the sends the workload must make (Jepsen's queue
 * checker is the model). Under 'skip' nothing may be duplicated, under 'resend' nothing may be lost,
 * and nothing unexpected may ever go out. What the ambiguous window allows is allowed per send: a
 * send may be lost (under 'skip') or go out again (under 'resend', once per time it was found
 * ambiguous) only when its own key was ambiguous in the same run. Comparing totals instead would let
 * an unrelated loss hide behind someone else's ambiguity.
 */
import { sendId, type ExpectedSend } from './workload.js'

/** A send that did not go out exactly once, with what its key's ambiguity allows. */
export interface Miss {
  /** "chat: text", for the report. */
  send: string
  /** Its outbox key. */
  key: string
  /** Copies missing (0 or 1). */
  lost: number
  /** Copies beyond the one expected. */
  duplicated: number
  /** How many times the send's key was found ambiguous in the run. */
  ambiguous: number
}

/** What a crash run delivered against what its workload expects, counted per send. */
export interface Tally {
  /** Sends the workload expects exactly once. */
  expected: number
  /** Sends the provider received. */
  delivered: number
  /** Expected sends that never arrived. */
  lost: number
  /** Copies beyond the first of a send. */
  duplicated: number
  /** Sends the workload does not expect at all. */
  unexpected: number
  /** Distinct keys found ambiguous. */
  ambiguous: number
  /** Which sends were lost, duplicated or unexpected ("chat: text"), and the ambiguous keys, each list sorted. */
  details: {
    /** The lost sends. */
    lost: string[]
    /** The duplicated sends. */
    duplicated: string[]
    /** The unexpected sends. */
    unexpected: string[]
    /** The keys found ambiguous. */
    ambiguous: string[]
  }
  /** Every expected send that did not go out exactly once, in the workload's order. */
  misses: Miss[]
  /**
   * Sends that went out before an earlier send of their chat (in the workload's order), each as
   * "chat: text before chat: text"; sends whose key was ambiguous are exempt (see outOfOrder).
   */
  outOfOrder: string[]
}

const readable = (id: string) => id.replace('\u241f', ': ')
const sorted = (items: Iterable<string>) => [...items].sort()

/** Counts lost, duplicated and unexpected sends; `ambiguous` maps a key to how many times it was found ambiguous. */
export function tally(
  expected: readonly ExpectedSend[],
  accepted: readonly { chatId: string; text: string }[],
  ambiguous: ReadonlyMap<string, number>,
): Tally {
  const got = new Map<string, number>()
  for (const send of accepted) {
    const id = sendId(send.chatId, send.text)
    got.set(id, (got.get(id) ?? 0) + 1)
  }
  const want = new Set<string>()
  const misses: Miss[] = []
  for (const send of expected) {
    const id = sendId(send.chatId, send.text)
    want.add(id)
    const have = got.get(id) ?? 0
    if (have === 1) continue
    misses.push({
      send: readable(id),
      key: send.key,
      lost: have === 0 ? 1 : 0,
      duplicated: Math.max(0, have - 1),
      ambiguous: ambiguous.get(send.key) ?? 0,
    })
  }
  const unexpected = [...got].filter(([id]) => !want.has(id))
  const sum = (values: number[]) => values.reduce((total, n) => total + n, 0)
  return {
    expected: expected.length,
    delivered: accepted.length,
    lost: sum(misses.map((miss) => miss.lost)),
    duplicated: sum(misses.map((miss) => miss.duplicated)),
    unexpected: sum(unexpected.map(([, count]) => count)),
    ambiguous: ambiguous.size,
    details: {
      lost: sorted(misses.filter((miss) => miss.lost > 0).map((miss) => miss.send)),
      duplicated: sorted(misses.filter((miss) => miss.duplicated > 0).map((miss) => miss.send)),
      unexpected: sorted(unexpected.map(([id]) => readable(id))),
      ambiguous: sorted(ambiguous.keys()),
    },
    misses,
    outOfOrder: outOfOrder(expected, accepted, ambiguous),
  }
}

/**
 * A chat's order, checked against the channel's log: each chat's sends, by their first copy, go out
 * in the workload's order. A send whose key was ambiguous is left out (under 'skip' it may be lost,
 * under 'resend' its first copy may be the one sent again after a crash), and so are sends that never
 * went out (dead letters), which the tally counts on their own.
 */
export function outOfOrder(
  expected: readonly ExpectedSend[],
  accepted: readonly { chatId: string; text: string }[],
  ambiguous: ReadonlyMap<string, number>,
): string[] {
  const place = new Map<string, number>()
  for (const [n, send] of expected.entries()) if (!ambiguous.has(send.key)) place.set(sendId(send.chatId, send.text), n)
  const seen = new Set<string>()
  const last = new Map<string, { at: number; id: string }>()
  const found: string[] = []
  for (const send of accepted) {
    const id = sendId(send.chatId, send.text)
    const at = place.get(id)
    if (at === undefined || seen.has(id)) continue
    seen.add(id)
    const before = last.get(send.chatId)
    if (before && before.at > at) found.push(`${readable(id)} after ${readable(before.id)}`)
    if (!before || before.at < at) last.set(send.chatId, { at, id })
  }
  return found
}

/**
 * What the delivery guarantee (docs/guarantees.md) forbids under a policy: no unexpected send, none
 * out of its chat's order;
 * with onAmbiguous 'skip' no duplicate, and a loss only of a key that was ambiguous; with 'resend'
 * no loss, and no more duplicates than the key was ambiguous. Empty when the run kept it.
 */
export function violations(result: Tally, policy: 'skip' | 'resend'): string[] {
  const problems: string[] = []
  if (result.unexpected > 0) problems.push(`${result.unexpected} unexpected send(s): ${result.details.unexpected.join(', ')}`)
  for (const swapped of result.outOfOrder) problems.push(`out of its chat's order: "${swapped}"`)
  for (const miss of result.misses) {
    const where = `"${miss.send}" (key ${miss.key}, ambiguous ${miss.ambiguous} time(s))`
    if (policy === 'skip') {
      if (miss.duplicated > 0) problems.push(`${where} duplicated ${miss.duplicated} time(s) under onAmbiguous 'skip'`)
      if (miss.lost > 0 && miss.ambiguous === 0) problems.push(`${where} lost, and its key was never ambiguous`)
    } else {
      if (miss.lost > 0) problems.push(`${where} lost under onAmbiguous 'resend'`)
      if (miss.duplicated > miss.ambiguous) problems.push(`${where} duplicated ${miss.duplicated} time(s), more than its key was ambiguous`)
    }
  }
  return problems
}
