/** `DurableKv` ops the backend tests write, built one way. */
import type { KvOp } from '../src/core/durability/journal/kv.js'

/** A put into the outbox under `expectVersion` (0: insert), pending and due at 1000, with `fields` changed. */
export const outboxPut = (key: string, expectVersion: number, fields: Partial<KvOp & { op: 'put' }> = {}): KvOp => ({
  op: 'put',
  collection: 'outbox',
  key,
  expectVersion,
  value: { key, n: expectVersion },
  state: 'pending',
  stateTime: 1_000,
  due: 1_000,
  ...fields,
})

/** A fresh inbox entry (an insert), pending, never due. */
export const inboxInsert = (key: string): KvOp => ({
  op: 'put',
  collection: 'inbox',
  key,
  expectVersion: 0,
  value: { key },
  state: 'pending',
  stateTime: 1,
  due: null,
})
