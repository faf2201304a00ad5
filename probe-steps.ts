import { Redis } from 'ioredis'
import { RedisDurability } from './src/backends/redis/index.js'
import { leaseOf } from './src/core/durability/steps/step-rules.js'
const c = new Redis('redis://127.0.0.1:6391')
const d = new RedisDurability({ client: c, prefix: 'probe' + Date.now() })
const steps = d.steps('s')
const usec = async () => { const s = await c.info('cpu'); const f = (n: string) => Number(new RegExp(`^${n}:([\\d.]+)`, 'm').exec(s)![1]); return (f('used_cpu_user') + f('used_cpu_sys')) * 1e6 }
const N = 2000
const now = Date.now()
const claim = { owner: 'o', incarnation: 'r', leaseMs: 30000, now }
const msgs = Array.from({ length: N }, (_, n) => ({ id: `mock:chat-${n}:${n}`, kind: 'message', state: 'processing', chatId: `chat-${n}`, provider: 'mock', event: { id: String(n), chatId: `chat-${n}`, text: 'a message of ordinary length, '.repeat(4) }, attempts: 1, nextAttemptAt: null, lease: leaseOf(claim, 1), fencingToken: 1, lastError: null, createdAt: now, seq: now * 1000 + n, updatedAt: now }) as any)
const reply = (m: any) => ({ key: `${m.id}:0`, state: 'sending', chatId: m.chatId, payload: { text: 'a reply of ordinary length, '.repeat(4) }, fingerprint: null, keySource: 'derived', inboundId: m.id, ordinal: 0, previousPart: null, nextPart: null, attempts: 0, nextAttemptAt: null, lease: leaseOf(claim, 1), fencingToken: 1, providerMessageId: null, lastError: null, createdAt: now, updatedAt: now }) as any
const phase = async (name: string, run: (m: any, done: () => void) => void) => {
  const u0 = await usec()
  await Promise.all(msgs.map((m) => new Promise<void>((r) => run(m, r))))
  console.log(name, ((await usec()) - u0) / N, 'µs a step')
}
await phase('warm', (m, done) => done())
await phase('admit', (m, done) => steps.admit(m, claim, (o) => { if (o.type !== 'run') throw new Error(o.type); done() }))
await phase('journal', (m, done) => steps.journal({ id: m.id, token: 1 }, [reply(m)], (o) => { if (o.type !== 'journaled') throw new Error(o.type); done() }))
await phase('marks', (m, done) => steps.settle({ marks: [{ key: `${m.id}:0`, messageId: 'p' }] }, claim, (o) => { if (o.type !== 'settled') throw new Error(o.type); done() }))
await phase('end', (m, done) => steps.settle({ inbound: { id: m.id, token: 1, end: { state: 'done' } }, marks: [] }, claim, (o) => { if (o.type !== 'settled') throw new Error(JSON.stringify(o)); done() }))

await c.flushall(); c.disconnect()
