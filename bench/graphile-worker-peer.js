/**
 * Another queue a user might pick on PostgreSQL, measured for information beside pg-boss:
 * graphile-worker 0.17 (a devDependency; 0.18 needs Node 22), on the same database as botmesh.
 * The jobs are added up front (`addJobs`, in batches), then a runner with `concurrency` c and a
 * no-op task drains them, with the library's defaults otherwise (each worker takes one job at a
 * time and completes it without awaiting the write), so the clock stops when the database holds
 * no job left. Everything lives in a schema of its own, dropped when the run ends.
 */
import { addInBatches, drainClock, peerFigures, versionOf, WARMUP_PER_SLOT } from './peer-drain.js'
import { scratchSchema } from './postgres-scratch.js'

/** Jobs added per addJobs call. */
const ADD_BATCH = 1_000
const TASK = 'noop'

/** Jobs/s of a graphile-worker runner at `concurrency` draining `jobs` no-op jobs. */
export async function measureGraphileWorker({ url, jobs, concurrency, timeoutMs }) {
  const { Logger, makeWorkerUtils, run } = await import('graphile-worker')
  const schema = await scratchSchema(url, 'botmesh_bench_graphile')
  const options = { connectionString: url, schema: schema.name, logger: new Logger(() => () => {}) }
  const warmup = WARMUP_PER_SLOT * concurrency
  const clock = drainClock({
    label: `graphile-worker at concurrency ${concurrency}`,
    warmup,
    jobs,
    timeoutMs,
    settled: async () => (await schema.count(`SELECT count(*) FROM "${schema.name}"._private_jobs`)) === 0,
  })
  let utils
  let runner
  try {
    utils = await makeWorkerUtils(options)
    await utils.migrate()
    await addInBatches(warmup + jobs, ADD_BATCH, (from, size) =>
      utils.addJobs(Array.from({ length: size }, (_, i) => ({ identifier: TASK, payload: { n: from + i } }))),
    )
    runner = await run({
      ...options,
      concurrency,
      noHandleSignals: true,
      taskList: { [TASK]: async () => {} },
      parsedCronItems: [],
    })
    runner.events.on('job:complete', () => clock.handled())
    runner.events.on('job:failed', ({ error }) => clock.fail(error))
    runner.promise.catch((error) => clock.fail(error))
    const seconds = await clock.seconds
    return peerFigures(`graphile-worker ${versionOf('graphile-worker')}`, { jobs, concurrency, seconds })
  } finally {
    await runner?.stop().catch(() => {})
    await utils?.release().catch(() => {})
    await schema.drop()
  }
}
