/** Shadow replay: recorded traffic through new code, compared send by send, with nothing sent or written. */
export {
  shadowReplay,
  type ShadowReplayOptions,
  type ShadowReport,
  type ShadowMessage,
  type ShadowOutcome,
  type ShadowSummary,
  type ShadowError,
} from './shadow-replay.js'
export type { DefineBot } from './shadow-bot.js'
export { SHADOW_LIMITS } from './limits.js'
