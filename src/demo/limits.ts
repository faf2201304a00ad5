/**
 * The demo's pacing, named with units last and defined once. The story is paced so that the
 * dashboard shows each step while its message line announces it; tests run it with every pause
 * at 0 (`DemoOptions.pace`), and quitting the dashboard early hurries the rest of the story.
 */
export const DEMO_LIMITS = {
  /** How long a step of the story stays on the dashboard (its announcement on the message line) before the next begins. */
  stepMs: 4_000,
  /** Between two messages of a step. */
  messageMs: 150,
  /** How long the first bot process runs on after its story reached the crash (a reply sent, its handler not done) before it is killed. */
  crashAfterMs: 2_500,
  /** The live traffic after the story: a message every so many ms. */
  livePaceMs: 700,
  /** How long the restarted bot waits at most for the replay, and for retries and backoffs to run out, before it sums up. */
  settleMaxMs: 15_000,
} as const

/** The story's pauses (the defaults are `DEMO_LIMITS`'). */
export interface DemoPace {
  /** @default DEMO_LIMITS.stepMs */
  stepMs: number
  /** @default DEMO_LIMITS.messageMs */
  messageMs: number
  /** @default DEMO_LIMITS.livePaceMs */
  livePaceMs: number
}

/** The pace with the defaults filled in. */
export function paceOf(pace: Partial<DemoPace> = {}): DemoPace {
  return {
    stepMs: pace.stepMs ?? DEMO_LIMITS.stepMs,
    messageMs: pace.messageMs ?? DEMO_LIMITS.messageMs,
    livePaceMs: pace.livePaceMs ?? DEMO_LIMITS.livePaceMs,
  }
}
