/**
 * The kill -9 test on each shared backend (test-utils/kill-nine), for either engine: a durable bot in
 * a child process is SIGKILLed 20 times at seeded moments, in admission, in its handler, between the
 * journaled send and the provider call, in the provider call and after it, and started again each
 * time, while a channel double streams 108 messages over 18 chats (bursts in some) and redelivers
 * what it saw no acknowledgement for. The channel's log is the witness: every message acknowledged
 * and answered, no reply twice but in the ambiguous window, each chat's replies in arrival order.
 *
 * The seed is drawn per run and printed first; replay a run's plan with KILL_NINE_SEED=<seed>.
 */
import { randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ENGINE_VARIABLE } from '../../src/core/durability/engine-choice.js'
import { useCleanups } from '../../test-utils/lifecycle.js'
import { KILL_PHASES } from '../../test-utils/kill-nine/kill-plan.js'
import { runKillNine, summaryLine } from '../../test-utils/kill-nine/run.js'
import { sharedTargets } from './shared-targets.js'

const KILLS = 20

/**
 * The test on every shared backend. `engine: 'steps'` runs the bot processes on the steps engine
 * (engine-choice.ts: the variable is set for the children this file starts); `file` is the test
 * file, for the replay line.
 */
export async function describeKillNine(file: string, engine?: 'steps'): Promise<void> {
  const targets = await sharedTargets()
  const label = engine ? ' on the steps engine' : ''
  describe.each(targets)(`kill -9 of a durable bot on $name${label}`, (target) => {
    const cleanups = useCleanups({ ignoreFailures: true })

    it.runIf(target.available)(
      `${KILLS} SIGKILLs in every phase of a message's path, restarted each time: the channel's log shows every message answered once (but in the ambiguous window), each chat in order`,
      async () => {
        const storage = target.fresh()
        cleanups.push(() => storage.cleanup())
        const before = process.env[ENGINE_VARIABLE]
        if (engine) process.env[ENGINE_VARIABLE] = engine
        cleanups.push(async () => {
          if (before === undefined) delete process.env[ENGINE_VARIABLE]
          else process.env[ENGINE_VARIABLE] = before
        })
        const seed = process.env.KILL_NINE_SEED ? Number(process.env.KILL_NINE_SEED) : randomInt(1, 2 ** 31)
        console.log(`kill -9, ${target.name}${label}: seed ${seed} (replay: KILL_NINE_SEED=${seed} npx vitest run ${file})`)
        const result = await runKillNine(storage, { seed, kills: KILLS })
        console.log(summaryLine(`${target.name}${label}`, result))
        expect(result.problems, result.report).toEqual([])
        expect(result.kills).toBe(KILLS)
        for (const phase of KILL_PHASES) expect(result.phases[phase], `kills in phase ${phase}`).toBeGreaterThan(0)
        expect(result.acknowledged).toBe(result.messages)
        expect(result.replies).toBe(result.messages)
      },
      300_000,
    )
  })
}
