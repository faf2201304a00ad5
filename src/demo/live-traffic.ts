/** Endless simulated traffic on a demo's file, on its own (the demo's restarted bot goes on with it itself). */
import { resolve } from 'node:path'
import { DEMO_LIMITS } from './limits.js'
import { startWorker } from './worker-process.js'

/** Endless simulated traffic on the demo's file, for the dashboard; `stop()` ends it cleanly. */
export interface LiveTraffic {
  /** Resolves with the live run's metrics once its bot stopped. */
  stop(): Promise<{ metrics: Record<string, number> }>
}

/** The pace of the live traffic after the story: a message every so many ms. */
export const LIVE_PACE_MS = DEMO_LIMITS.livePaceMs

/** Starts the demo bot in its `live` phase (the story's messages again, every `paceMs`) until `stop()`. */
export function startLiveTraffic(file: string, print: (line: string) => void, paceMs: number = LIVE_PACE_MS): LiveTraffic {
  const worker = startWorker(resolve(file), { phase: 'live', stepMs: 0, messageMs: 0, livePaceMs: paceMs }, { print })
  return {
    stop: () => {
      worker.child.kill('SIGTERM')
      return worker.exited
    },
  }
}
