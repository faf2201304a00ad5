/**
 * Runs the real-process crash test (src/testing/process-crash) under vitest: seeded runs where a
 * child process running a bot on the backend is SIGKILLed in the middle of a handler, a provider call
 * or a journal write, then restarted with the same instanceId. Replay one: PROCESS_CRASH_SEED=<seed>.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DurabilityBackend } from '../src/core/durability/journal/backend.js'
import { runProcessCrash, type KillMoment, type ProcessCrashResult } from '../src/testing/process-crash/index.js'

export interface ProcessCrashTarget {
  /** Absolute path of a module exporting createBackend(arg) and createStore(arg). */
  module: string
  /** Fresh storage for one run: the argument the child passes to the module, and how to open it here. */
  prepare(dir: string): { arg: unknown; open(): Promise<DurabilityBackend>; cleanup?(): Promise<void> }
}

export function describeProcessCrash(backendName: string, target: ProcessCrashTarget, options: { runs?: number } = {}): void {
  describe(`SIGKILL crash test: ${backendName}`, () => {
    const results: ProcessCrashResult[] = []
    const only = process.env.PROCESS_CRASH_SEED ? Number(process.env.PROCESS_CRASH_SEED) : undefined
    const runs = only !== undefined ? 1 : (options.runs ?? 6)
    const moments: KillMoment[] = ['handler', 'send', 'write']
    for (let n = 0; n < runs; n++) {
      const seed = only ?? 1000 + n
      const policy = n % 2 === 0 ? 'skip' : 'resend'
      const killOn = moments[n % moments.length]!
      it(`seed ${seed}: killed in the middle of a ${killOn}, restarted with the same instanceId (${policy})`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'botmesh-kill-'))
        const storage = target.prepare(dir)
        try {
          const result = await runProcessCrash({
            backendModule: target.module,
            backendArg: storage.arg,
            openBackend: storage.open,
            dir,
            seed,
            policy,
            killOn,
          })
          results.push(result)
          expect(result.problems, `${JSON.stringify(result)}\nreplay: PROCESS_CRASH_SEED=${seed} npx vitest run <this file>`).toEqual([])
        } finally {
          await storage.cleanup?.()
          rmSync(dir, { recursive: true, force: true })
        }
      }, 120_000)
    }
    afterAll(() => {
      if (results.length === 0) return
      const sum = (key: 'lost' | 'duplicated' | 'unexpected' | 'ambiguous') => results.reduce((total, r) => total + r[key], 0)
      console.log(
        `SIGKILL ${backendName}: ${results.length} runs, ${results.filter((r) => r.killed).length} killed mid-run, ` +
          `lost ${sum('lost')}, duplicated ${sum('duplicated')}, unexpected ${sum('unexpected')}, ambiguous ${sum('ambiguous')}, failed ${results.filter((r) => !r.ok).length}`,
      )
    })
  })
}
