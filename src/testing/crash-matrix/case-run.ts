/**
 * One crash case's run: its generations of the bot on `crashable(backend)`, each abandoned at its
 * crash as a dead process would be, and what they observed (runner.ts gives it a verdict).
 */
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import type { EncryptionOptions } from '../../core/durability/config.js'
import { CRASH_POINTS, type CrashPoint } from '../../core/durability/journal/crash-points.js'
import { chooseEngine, type EngineName } from '../../core/durability/engine-choice.js'
import { textOf } from '../../core/bot/hooks.js'
import { crashable, type CrashableBackend } from '../crashable.js'
import { CrashableProvider } from '../crashable-provider.js'
import type { CrashCase } from './cases.js'
import { within } from './deadline.js'
import { redeliveries, runGeneration } from './generation.js'
import { journalExpiredTraffic, journalProblems, WORKLOAD_SCOPE } from './journal-check.js'
import { seededRandom } from './random.js'
import { CRASH_LOOP_CHAT, CRASH_LOOP_GENERATIONS, crashLoopHandler, crashLoopMessages } from './crash-loop.js'
import { scriptProvider, workloadBot, workloadMessages, WorkloadStore, WORKLOAD_TEXT_LIMIT } from './workload.js'

/** Makes the backend for a case, and the backend a restarted process would open after a crash. */
export interface CrashBackendFactory {
  /** A fresh, not yet started backend for one case. */
  create(): Promise<DurabilityBackend>
  /** The backend the next process opens after `crashed` died (reopen the files, drop unsynced writes…). @default the same backend */
  restart?(crashed: DurabilityBackend): Promise<DurabilityBackend>
  /** Called after the case, whatever its outcome, with the last backend (already stopped). */
  cleanup?(backend: DurabilityBackend): Promise<void>
}

/** Thrown inside a case that was cut off, when a step it waited on settles after all. */
class CaseCutOff extends Error {}

/** One case's generations and what they observed; `cutOff` abandons it like a dead process. */
export class CaseRun {
  /** What the case is doing, for a timeout's message. */
  step = 'creating the backend'
  generations = 0
  crashedTarget = false
  /** Each ambiguous send's key, and how many times it was found ambiguous. */
  readonly ambiguous = new Map<string, number>()
  readonly #random: () => number
  readonly #wrappers: CrashableBackend[] = []
  readonly #providers: CrashableProvider[] = []
  #backend: DurabilityBackend | undefined
  /** A backend being opened (created, or reopened after a crash), until it is adopted. */
  #opening: Promise<DurabilityBackend> | undefined
  #cutOff = false

  constructor(
    private readonly factory: CrashBackendFactory,
    private readonly testCase: CrashCase,
    private readonly settleTimeoutMs: number,
    private readonly encryption: EncryptionOptions | undefined,
    private readonly clock: (() => number) | undefined,
    private readonly engine: EngineName | undefined,
  ) {
    this.#random = seededRandom(testCase.seed)
  }

  /** Runs every generation, then checks the journal; resolves to the journal's problems. */
  async execute(): Promise<string[]> {
    const { testCase, factory } = this
    const store = new WorkloadStore()
    const chats = testCase.crashLoop ? [...workloadMessages(), crashLoopMessages()] : workloadMessages()
    const acknowledged = new Set<string>()
    // A crash loop's generations go on past the armed crashes, until its head is dead-lettered and the bot stops.
    const lastGeneration = testCase.crashes.length + (testCase.crashLoop ? CRASH_LOOP_GENERATIONS : 0)
    await this.#adopt(factory.create())
    // A sealed journal's purge writes only when it deletes (a plain one is one backend call either
    // way): with encryption on, yesterday's traffic gives retention something to delete.
    if (this.encryption) await journalExpiredTraffic(this.#backend!, WORKLOAD_SCOPE)
    for (let generation = 0; generation <= lastGeneration; generation++) {
      this.generations = generation + 1
      const step = testCase.crashes[generation]
      const wrapped = crashable(this.#backend!)
      if (this.engine) chooseEngine(wrapped, this.engine)
      if (step)
        step.when === 'before' ? wrapped.crashBefore(step.point, { nth: step.nth }) : wrapped.crashAfter(step.point, { nth: step.nth })
      const provider = new CrashableProvider(wrapped, { textLimit: WORKLOAD_TEXT_LIMIT, latencyMs: Math.floor(this.#random() * 3) })
      this.#wrappers.push(wrapped)
      this.#providers.push(provider)
      scriptProvider(provider)
      const bot = workloadBot({
        backend: wrapped,
        provider,
        store,
        onAmbiguous: testCase.policy,
        encryption: this.encryption,
        clock: this.clock,
        ...(testCase.crashLoop && { crashLoop: crashLoopHandler(wrapped.journal(WORKLOAD_SCOPE), () => wrapped.crashNow()) }),
      })
      bot.on('durability:ambiguous', ({ key }: { key: string }) => this.ambiguous.set(key, (this.ambiguous.get(key) ?? 0) + 1))
      this.step = `generation ${generation} (${step ? `armed ${step.when} ${step.point} #${step.nth ?? 1}` : 'runs to the end'})`
      // The crash loop's chat is delivered again whole after every crash, as nothing of it was acknowledged for good.
      const messages =
        generation === 0
          ? chats
          : redeliveries(chats, acknowledged, testCase.seed, generation).map((again, n) =>
              chats[n]![0]?.chatId === CRASH_LOOP_CHAT ? chats[n]! : again,
            )
      const outcome = await this.#unlessCutOff(
        runGeneration(bot, provider, wrapped, messages, acknowledged, this.settleTimeoutMs, { seed: testCase.seed, generation }),
      )
      if (outcome === 'stopped') break
      if (generation === testCase.crashes.length - 1 || (testCase.crashes.length === 0 && generation === 0)) this.crashedTarget = true
      this.step = `restarting after generation ${generation} crashed`
      // A killed process's last writes land (or fail) moments after it died; the restarted one starts after that.
      await this.#unlessCutOff(within(wrapped.quiet(), this.settleTimeoutMs))
      if (factory.restart) await this.#adopt(factory.restart(this.#backend!))
    }
    this.step = 'checking the journal'
    return this.#unlessCutOff(
      journalProblems(this.#backend!, WORKLOAD_SCOPE, this.ambiguous, {
        sealed: this.encryption !== undefined,
        crashLoop: testCase.crashLoop === true,
      }),
    )
  }

  /** Abandons the case: the generation running dies as at a crash, and nothing after it starts. */
  cutOff(): void {
    this.#cutOff = true
    this.#wrappers.at(-1)?.crashNow()
  }

  /**
   * Removes the case's data: the latest backend holds all of it. When the case was cut off while a
   * backend was being opened (created, or reopened after a crash), that one is awaited and removed
   * too (the caller bounds the wait): left to settle on its own, the process could exit before its
   * data is removed.
   */
  async cleanup(): Promise<void> {
    // Writes the cut-off run had already sent (an instance heartbeat, say) land first, as a killed
    // process's do: removed before they land, they would recreate keys after the cleanup.
    await Promise.all(this.#wrappers.map((wrapped) => wrapped.quiet()))
    // Each is removed even when removing the other failed; the first failure is reported.
    const failures: unknown[] = []
    const remove = (backend: DurabilityBackend) => this.factory.cleanup?.(backend).catch((error: unknown) => void failures.push(error))
    if (this.#backend) await remove(this.#backend)
    const late = await this.#opening?.catch(() => undefined)
    if (late && late !== this.#backend) await remove(late)
    if (failures.length > 0) throw failures[0]
  }

  /** What the channel accepted, over every generation. */
  accepted(): { chatId: string; text: string }[] {
    return this.#providers.flatMap((provider) => provider.sent.map((sent) => ({ chatId: sent.chatId, text: textOf(sent.content) ?? '' })))
  }

  /** Every crash point some generation reached, in CRASH_POINTS' order (first-reached order varies with timing). */
  reached(): CrashPoint[] {
    const reached = new Set<string>(this.#wrappers.flatMap((wrapped) => [...wrapped.reached.keys()]))
    return CRASH_POINTS.filter((point) => reached.has(point))
  }

  /** Takes a new backend as the case's; one that arrives after the cut-off is left to cleanup(). */
  async #adopt(opening: Promise<DurabilityBackend>): Promise<void> {
    this.#opening = opening
    const backend = await opening
    if (this.#cutOff) throw new CaseCutOff()
    this.#opening = undefined
    this.#backend = backend
  }

  async #unlessCutOff<T>(work: Promise<T>): Promise<T> {
    const value = await work
    if (this.#cutOff) throw new CaseCutOff()
    return value
  }
}
