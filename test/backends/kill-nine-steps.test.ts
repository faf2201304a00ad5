/**
 * kill -9 of a durable bot on each shared backend (kill-nine-suite.ts), on the steps engine
 * (issue 40): the same witness as the default engine's, so the new message path is crash-tested on
 * Redis and PostgreSQL while it is moved over. A file of its own, so it runs beside the other.
 */
import { describeKillNine } from './kill-nine-suite.js'

await describeKillNine('test/backends/kill-nine-steps.test.ts', 'steps')
