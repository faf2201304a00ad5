/** The real-process crash test: SIGKILL a child running a bot on a backend, restart it, check the oracle. */
export { runProcessCrash, type KillMoment, type ProcessCrashOptions, type ProcessCrashResult } from './run.js'
export { OracleProvider, readOracle, appendOracle, type OracleLine } from './oracle-file.js'
export type { ChildConfig } from './child.js'
