/**
 * The durable-execution library a user would pick on PostgreSQL instead of botmesh: DBOS Transact
 * (`@dbos-inc/dbos-sdk` 5, a devDependency), on the same database as botmesh and pg-boss. One
 * message is one workflow of one step, started under its own workflow ID (the message's id, as
 * botmesh admits a message under its id), run in this process: DBOS writes the workflow's status
 * when it starts, the step's output when the step returns, and the workflow's outcome when it ends,
 * three writes against botmesh's admit, journal and settle. `concurrency` clients each start a
 * workflow and await its result before starting the next (a closed loop, as `botmesh bench` sends a
 * message and awaits its reply), so workflows/s is comparable with botmesh's msg/s one for one.
 * The library's defaults otherwise (its connection pool among them); no admin server. Everything
 * lives in a system-database schema of its own, dropped when the run ends.
 */
import { peerFigures, versionOf, WARMUP_PER_SLOT } from './peer-drain.js'
import { scratchSchema } from './postgres-scratch.js'
import { BenchError } from './options.js'

/** The one workflow, registered once per process (DBOS registers before it launches; a process may launch it again). */
let messageWorkflow

/** Workflows/s of `concurrency` clients each running one-step workflows in turn, `jobs` in all after a warm-up. */
export async function measureDbos({ url, jobs, concurrency, timeoutMs }) {
  const { DBOS } = await import('@dbos-inc/dbos-sdk')
  messageWorkflow ??= DBOS.registerWorkflow(async (text) => DBOS.runStep(async () => `re:${text}`, { name: 'reply' }), {
    name: 'botmeshBenchMessage',
  })
  const schema = await scratchSchema(url, 'botmesh_bench_dbos')
  DBOS.setConfig({
    name: 'botmesh-bench',
    applicationVersion: 'botmesh-bench',
    systemDatabaseUrl: url,
    systemDatabaseSchemaName: schema.name,
    runAdminServer: false,
    logLevel: 'error',
  })
  const run = schema.name.slice(-12)
  const message = async (id) => {
    const handle = await DBOS.startWorkflow(messageWorkflow, { workflowID: `${run}-${id}` })(id)
    await handle.getResult()
  }
  let timer
  try {
    await DBOS.launch()
    await closedLoop(concurrency, WARMUP_PER_SLOT * concurrency, (n) => message(`warmup-${n}`))
    const started = performance.now()
    const drained = closedLoop(concurrency, jobs, (n) => message(`m${n}`))
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new BenchError('BENCH_PEER_FAILED', `DBOS at concurrency ${concurrency}: not done after ${timeoutMs / 1000}s`)),
        timeoutMs,
      )
    })
    await Promise.race([drained, timeout])
    const seconds = (performance.now() - started) / 1_000
    return {
      ...peerFigures(`DBOS Transact ${versionOf('@dbos-inc/dbos-sdk')} one-step workflow`, { jobs, concurrency, seconds }),
      unit: 'workflow',
    }
  } finally {
    clearTimeout(timer)
    await DBOS.shutdown().catch(() => {})
    await schema.drop()
  }
}

/** `count` operations shared by `clients`, each starting its next one when its last finished. */
async function closedLoop(clients, count, operate) {
  let next = 0
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) await operate(next++)
    }),
  )
}
