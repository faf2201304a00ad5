/**
 * The child process of a real-process crash test: runs the crash matrix's workload bot on a backend
 * made by a module the test names, prints a marker before each handler, provider call and journal
 * write (so the parent can SIGKILL it in the middle of one), and exits 0 once idle.
 *
 *   node child.js '<json ChildConfig>'
 */
import type { DurabilityBackend } from '../../core/durability/journal/backend.js'
import { aroundJournalWrites } from '../wrap-writes.js'
import type { Store } from '../../core/store/store.js'
import { appendOracle, OracleProvider, readOracle } from './oracle-file.js'
import { scriptProvider, workloadBot, workloadMessages, WorkloadStore, WORKLOAD_TEXT_LIMIT } from '../crash-matrix/workload.js'

/** What the parent tells the child. */
export interface ChildConfig {
  /**
   * A module whose `createBackend(arg)` returns the backend under test (a fresh object over the same
   * storage), and whose `createStore(arg)` returns a persistent store (flow checkpoints must survive too).
   */
  backendModule: string
  backendArg: unknown
  oracleFile: string
  policy: 'skip' | 'resend'
  /** The handlers and the channel pause this long after a marker, so a kill lands inside. */
  pauseMs: number
}

const config = JSON.parse(process.argv[2]!) as ChildConfig
const { createBackend, createStore } = (await import(config.backendModule)) as {
  createBackend(arg: unknown): Promise<DurabilityBackend> | DurabilityBackend
  createStore(arg: unknown): Promise<Store> | Store
}
const marker = (kind: string) => process.stdout.write(`MARK ${kind}\n`)
const pause = () => new Promise((resolve) => setTimeout(resolve, config.pauseMs))

/** Prints a marker (and pauses) before every provider call. */
class MarkedProvider extends OracleProvider {
  override async send(chatId: string, content: Parameters<OracleProvider['send']>[1]) {
    marker('send')
    await pause()
    return super.send(chatId, content)
  }
}

// A marker before every journal write.
const backend = aroundJournalWrites(await createBackend(config.backendArg), (_name, _writes, write) => {
  marker('write')
  return write()
})
const provider = new MarkedProvider(config.oracleFile, { textLimit: WORKLOAD_TEXT_LIMIT })
scriptProvider(provider)
// The store's one scripted failure happens once per test, not once per process.
const store = new WorkloadStore(await createStore(config.backendArg), {
  failedOnce: readOracle(config.oracleFile).some((line) => 'storeFailedOnce' in line),
  onFailOnce: () => appendOracle(config.oracleFile, { storeFailedOnce: true }),
})
const bot = workloadBot({ backend, provider, store, onAmbiguous: config.policy })
bot.before('send', async (send) => {
  marker('handler')
  await pause()
  return send
})
bot.on('durability:ambiguous', ({ key }: { key: string }) => appendOracle(config.oracleFile, { ambiguous: key }))
await bot.start()
await bot.idle()
await Promise.all(
  workloadMessages().map(async (messages) => {
    for (const event of messages) {
      await provider.receive(event)
      appendOracle(config.oracleFile, { acked: event.id })
    }
  }),
)
await bot.idle()
await bot.stop()
process.stdout.write('IDLE\n')
