/**
 * Runs crash cases. Each generation of the bot runs on `crashable(backend)` armed with its crash;
 * when it crashes it is abandoned (as a dead process would be), and the next generation starts on
 * the same backend and store with the same instanceId, gets every message the channel would
 * redeliver (those never acknowledged, plus a seeded few that were), and runs until idle.
 */
import type { DurabilityBackend } from '../../durability/backend.js'
import type { CrashPoint } from '../../durability/crash-points.js'
import type { InboundEvent } from '../../provider.js'
import { textOf } from '../../hooks.js'
import { crashable, type CrashableBackend } from '../crashable.js'
import { CrashableProvider } from '../crashable-provider.js'
import type { CrashCase } from './cases.js'
import { tally, violations, type Tally } from './checker.js'
import { seededRandom } from './random.js'
import { expectedSends, scriptProvider, workloadBot, workloadMessages, WorkloadStore, WORKLOAD_TEXT_LIMIT } from './workload.js'

/** Makes the backend for a case, and the backend a restarted process would open after a crash. */
export interface CrashBackendFactory {
  create(): Promise<DurabilityBackend>
  /** The backend the next process opens after `crashed` died (reopen the files, drop unsynced writes…). @default the same backend */
  restart?(crashed: DurabilityBackend): Promise<DurabilityBackend>
  cleanup?(backend: DurabilityBackend): Promise<void>
}

export interface CrashCaseResult extends Tally {
  name: string
  policy: 'skip' | 'resend'
  seed: number
  /** Whether the case's own crash happened (a random occurrence may not exist). */
  crashed: boolean
  /** Every journal write reached, for coverage. */
  reached: CrashPoint[]
  generations: number
  ok: boolean
  problems: string[]
}

/** A generation that does not settle within this time fails the case (a hang is a bug too). */
const GENERATION_TIMEOUT_MS = 20_000

export async function runCrashCase(factory: CrashBackendFactory, testCase: CrashCase): Promise<CrashCaseResult> {
  const random = seededRandom(testCase.seed)
  const store = new WorkloadStore()
  const chats = workloadMessages()
  const acknowledged = new Set<string>()
  const accepted: { chatId: string; text: string }[] = []
  const reached = new Set<CrashPoint>()
  const problems: string[] = []
  const ambiguous = new Set<string>()
  let backend = await factory.create()
  let generation = 0
  let crashedTarget = false
  try {
    for (; generation <= testCase.crashes.length; generation++) {
      const step = testCase.crashes[generation]
      const wrapped = crashable(backend)
      if (step) (step.when === 'before' ? wrapped.crashBefore(step.point, { nth: step.nth }) : wrapped.crashAfter(step.point, { nth: step.nth }))
      const provider = new CrashableProvider(wrapped, { textLimit: WORKLOAD_TEXT_LIMIT, latencyMs: Math.floor(random() * 3) })
      scriptProvider(provider)
      const bot = workloadBot({ backend: wrapped, provider, store, onAmbiguous: testCase.policy })
      bot.on('durability:ambiguous', ({ key }: { key: string }) => ambiguous.add(key))
      const outcome = await runGeneration(bot, provider, wrapped, generation === 0 ? chats : redeliveries(chats, acknowledged, random), acknowledged)
      for (const sent of provider.sent) accepted.push({ chatId: sent.chatId, text: textOf(sent.content) ?? '' })
      for (const [name] of wrapped.reached) reached.add(name as CrashPoint)
      if (outcome === 'timeout') {
        problems.push(`generation ${generation} did not settle within ${GENERATION_TIMEOUT_MS} ms`)
        break
      }
      if (outcome === 'idle') {
        await bot.stop()
        break
      }
      if (generation === testCase.crashes.length - 1) crashedTarget = true
      backend = factory.restart ? await factory.restart(backend) : backend
    }
    if (problems.length === 0) problems.push(...(await journalProblems(backend, WORKLOAD_SCOPE, ambiguous)))
  } finally {
    await factory.cleanup?.(backend)
  }
  const counts = tally(expectedSends(), accepted, ambiguous.size)
  problems.push(...violations(counts, testCase.policy))
  return { name: testCase.name, policy: testCase.policy, seed: testCase.seed, crashed: crashedTarget, reached: [...reached], generations: generation + 1, ...counts, ok: problems.length === 0, problems }
}

/** The scope the workload bot works in. */
export const WORKLOAD_SCOPE = 'default/default/crash-matrix/default'

/** Delivers the messages (chats in parallel, in order within a chat) until the bot crashes or goes idle. */
async function runGeneration(
  bot: ReturnType<typeof workloadBot>,
  provider: CrashableProvider,
  wrapped: CrashableBackend,
  chats: InboundEvent[][],
  acknowledged: Set<string>,
): Promise<'crashed' | 'idle' | 'timeout'> {
  const crashed = wrapped.whenCrashed().then(() => 'crashed' as const)
  const work = (async () => {
    await bot.start()
    // Let the first sweep take back what an earlier generation left, before new messages arrive.
    await bot.idle()
    await Promise.all(
      chats.map(async (messages) => {
        for (const event of messages) {
          await provider.receive(event)
          acknowledged.add(event.id)
        }
      }),
    )
    await bot.idle()
    return 'idle' as const
  })()
  work.catch(() => undefined)
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), GENERATION_TIMEOUT_MS)
  })
  try {
    return await Promise.race([crashed, work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** What the channel redelivers after a crash: every message not acknowledged, and a seeded few that were. */
function redeliveries(chats: InboundEvent[][], acknowledged: Set<string>, random: () => number): InboundEvent[][] {
  return chats.map((messages) => messages.filter((event) => !acknowledged.has(event.id) || random() < 0.3))
}

/**
 * The journal must end settled: every inbound done (the poisoned one dead), no send left pending.
 * Sends left unknown are ambiguous even when the crash swallowed their 'durability:ambiguous' event.
 */
export async function journalProblems(backend: DurabilityBackend, scopeId: string, ambiguous: Set<string>): Promise<string[]> {
  await backend.start()
  try {
    const journal = backend.journal(scopeId)
    for (const found of await journal.list('outbox', { state: 'unknown', limit: 1_000 })) ambiguous.add(found.record.key)
    const problems: string[] = []
    const inbox = await journal.count('inbox')
    const outbox = await journal.count('outbox')
    const unsettledInbox = (inbox.pending ?? 0) + (inbox.processing ?? 0) + (inbox.failed ?? 0)
    const unsettledOutbox = (outbox.pending ?? 0) + (outbox.sending ?? 0) + (outbox.failed ?? 0)
    if (unsettledInbox > 0) problems.push(`inbox not settled: ${JSON.stringify(inbox)}`)
    if (unsettledOutbox > 0) {
      const stuck = (await Promise.all(['pending', 'sending', 'failed'].map((state) => journal.list('outbox', { state, limit: 5 })))).flat()
      problems.push(`outbox not settled: ${JSON.stringify(outbox)}: ${stuck.map((f) => JSON.stringify({ ...f.record, payload: undefined, fingerprint: undefined })).join(' ')}`)
    }
    const [poison] = await journal.read('inbox', ['c-poison.1'])
    if (poison && poison.record.state !== 'dead') problems.push(`the poisoned message is ${poison.record.state}, not dead: ${JSON.stringify(poison.record)}`)
    return problems
  } finally {
    await backend.stop()
  }
}
