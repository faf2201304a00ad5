/**
 * The crash matrix's verdict, from an oracle apart from the journal under test: the providers' own
 * logs of what the channel accepted, compared with the sends the workload must make (Jepsen's queue
 * checker is the model). Under 'skip' nothing may be duplicated, under 'resend' nothing may be lost,
 * and nothing unexpected may ever go out; what the ambiguous window allows is counted apart.
 */
import { sendId } from './workload.js'

export interface Tally {
  expected: number
  delivered: number
  lost: number
  duplicated: number
  unexpected: number
  ambiguous: number
  /** Which sends were lost, duplicated or unexpected ("chat: text"), for the report. */
  details: { lost: string[]; duplicated: string[]; unexpected: string[] }
}

/** Counts lost, duplicated and unexpected sends. */
export function tally(expected: readonly string[], accepted: readonly { chatId: string; text: string }[], ambiguous: number): Tally {
  const want = new Map<string, number>()
  for (const id of expected) want.set(id, (want.get(id) ?? 0) + 1)
  const got = new Map<string, number>()
  for (const send of accepted) {
    const id = sendId(send.chatId, send.text)
    got.set(id, (got.get(id) ?? 0) + 1)
  }
  let lost = 0
  let duplicated = 0
  let unexpected = 0
  const details = { lost: [] as string[], duplicated: [] as string[], unexpected: [] as string[] }
  const readable = (id: string) => id.replace('\u241f', ': ')
  for (const [id, count] of want) {
    const have = got.get(id) ?? 0
    if (have < count) {
      lost += count - have
      details.lost.push(readable(id))
    }
    if (have > count) {
      duplicated += have - count
      details.duplicated.push(readable(id))
    }
  }
  for (const [id, count] of got) {
    if (want.has(id)) continue
    unexpected += count
    details.unexpected.push(readable(id))
  }
  return { expected: expected.length, delivered: accepted.length, lost, duplicated, unexpected, ambiguous, details }
}

/** What the seed's guarantee allows under a policy; empty when the run kept it. */
export function violations(result: Tally, policy: 'skip' | 'resend'): string[] {
  const problems: string[] = []
  if (result.unexpected > 0) problems.push(`${result.unexpected} unexpected send(s)`)
  if (policy === 'skip') {
    if (result.duplicated > 0) problems.push(`${result.duplicated} duplicate(s) under onAmbiguous 'skip'`)
    if (result.lost > result.ambiguous) problems.push(`${result.lost} lost, more than the ${result.ambiguous} ambiguous send(s)`)
  } else {
    if (result.lost > 0) problems.push(`${result.lost} lost under onAmbiguous 'resend'`)
    if (result.duplicated > result.ambiguous) problems.push(`${result.duplicated} duplicate(s), more than the ${result.ambiguous} ambiguous send(s)`)
  }
  return problems
}
