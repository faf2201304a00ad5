/** kill -9 of a durable bot on each shared backend (kill-nine-suite.ts), on the default engine. */
import { describeKillNine } from './kill-nine-suite.js'

await describeKillNine('test/backends/kill-nine.test.ts')
