/**
 * Records as the engine hands them to the steps, for the steps' tests and the processes they start
 * (no test runner imported here: a child process loads it too).
 */
import type { InboxRecord } from '../src/core/durability/journal/records.js'
import type { StepClaim } from '../src/core/durability/steps/journal-steps.js'
import { leaseOf } from '../src/core/durability/steps/step-rules.js'

/** A message as the engine admits it: processing under `claim`, one run charged, token 1. */
export function admitted(chatId: string, n: number, claim: StepClaim): InboxRecord {
  return {
    id: `mock:${chatId}:${n}`,
    kind: 'message',
    state: 'processing',
    chatId,
    provider: 'mock',
    event: { id: String(n), chatId, text: `m${n}` },
    attempts: 1,
    nextAttemptAt: null,
    lease: leaseOf(claim, 1),
    fencingToken: 1,
    lastError: null,
    createdAt: claim.now,
    seq: claim.now * 1000 + n,
    updatedAt: claim.now,
  }
}
