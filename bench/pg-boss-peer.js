/**
 * The queue a user would pick instead on PostgreSQL: pg-boss 10 (a devDependency; its last major
 * that runs on Node 20), on the same database as botmesh. The jobs are added up front (`insert`,
 * in batches), then one `work()` with `batchSize` c and a no-op handler drains them. A pg-boss
 * worker fetches at most once a polling interval (half a second at the least) unless it is told
 * there is more: the handler calls `notifyWorker` when its batch came full, pg-boss's own way to
 * skip the interval, so the worker fetches its next batch at once (without it a worker drains at
 * most 2 × batchSize jobs/s). pg-boss completes a batch after its handler returns without awaiting
 * the completion, so the clock stops when the database holds every job completed. Supervision and
 * cron scheduling are off: no maintenance runs during a drain. Everything lives in a schema of
 * its own, dropped when the run ends.
 */
import { addInBatches, drainClock, peerFigures, versionOf, WARMUP_PER_SLOT } from './peer-drain.js'
import { scratchSchema } from './postgres-scratch.js'

/** Jobs added per insert call. */
const INSERT_BATCH = 1_000
/** pg-boss's least polling interval: the worker's wait when it found no job. */
const POLLING_INTERVAL_SECONDS = 0.5
const QUEUE = 'peer'

/** Jobs/s of one pg-boss worker with `batchSize` = `concurrency` draining `jobs` jobs. */
export async function measurePgBoss({ url, jobs, concurrency, timeoutMs }) {
  const { default: PgBoss } = await import('pg-boss')
  const schema = await scratchSchema(url, 'botmesh_bench_pgboss')
  const boss = new PgBoss({ connectionString: url, schema: schema.name, supervise: false, schedule: false })
  const warmup = WARMUP_PER_SLOT * concurrency
  const clock = drainClock({
    label: `pg-boss at batchSize ${concurrency}`,
    warmup,
    jobs,
    timeoutMs,
    settled: async () =>
      (await schema.count(`SELECT count(*) FROM "${schema.name}".job WHERE name = $1 AND state <> 'completed'`, [QUEUE])) === 0,
  })
  boss.on('error', (error) => clock.fail(error))
  try {
    await boss.start()
    await boss.createQueue(QUEUE)
    await addInBatches(warmup + jobs, INSERT_BATCH, (from, size) =>
      boss.insert(Array.from({ length: size }, (_, i) => ({ name: QUEUE, data: { n: from + i } }))),
    )
    let workerId
    const batchSize = concurrency
    workerId = await boss.work(QUEUE, { batchSize, pollingIntervalSeconds: POLLING_INTERVAL_SECONDS }, async (batch) => {
      clock.handled(batch.length)
      if (batch.length === batchSize && workerId) boss.notifyWorker(workerId)
    })
    const seconds = await clock.seconds
    return peerFigures(`pg-boss ${versionOf('pg-boss')} work() batchSize ${batchSize}`, { jobs, concurrency, seconds })
  } finally {
    await boss.stop({ graceful: false, close: true }).catch(() => {})
    await schema.drop()
  }
}
