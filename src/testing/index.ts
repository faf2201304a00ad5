/**
 * `botmesh/core/testing`: the crash-testing kit and the test providers.
 *
 * @module botmesh/core/testing
 */
export { MockProvider, type MockProviderOptions, type MockSent } from './mock-provider.js'
export { crashable, CrashableBackend, type CrashSite } from './crashable.js'
export { CrashableProvider } from './crashable-provider.js'
export { CRASH_POINTS, type CrashPoint, type WriteName } from '../core/durability/journal/crash-points.js'
export {
  CONFORMANCE_CASES,
  runCase,
  runCases,
  type BackendFactory,
  type ConformanceCase,
  type ConformanceContext,
  type CaseResult,
} from './conformance/index.js'
export { ManualClock } from './manual-clock.js'
export { PowerLossFs, type PowerLossOptions, type PowerLossFileOutcome } from './power-loss-fs.js'
export type { FileSystem, FileHandle, FileStat, OpenHow } from '../core/platform/file-system.js'
export {
  deterministicCases,
  randomCases,
  randomCase,
  runCrashCase,
  CRASH_CASE_LIMITS,
  type CrashBackendFactory,
  type CrashCase,
  type CrashCaseOptions,
  type CrashCaseResult,
  type CrashStep,
  type Miss,
} from './crash-matrix/index.js'
export {
  runProcessCrash,
  OracleProvider,
  type ProcessCrashOptions,
  type ProcessCrashResult,
  type KillMoment,
} from './process-crash/index.js'
export {
  shadowReplay,
  SHADOW_LIMITS,
  type ShadowReplayOptions,
  type ShadowReport,
  type ShadowMessage,
  type ShadowOutcome,
  type ShadowSummary,
  type ShadowError,
  type DefineBot,
} from './shadow/index.js'
