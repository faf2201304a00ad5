/**
 * The queues (and the durable-execution library) a user would pick instead of botmesh, by backend, each measured right after the
 * botmesh run of the same backend and concurrency, on the same server. `key` names the peer's
 * figures on a row of `npm run bench` (`bullmq`, `bullmqRatio`: botmesh msg/s ÷ its jobs/s).
 * One queue job is half a botmesh message: a message is an inbound journaled and a reply through the
 * outbox. One DBOS workflow is one message (its three writes against botmesh's admit, journal and settle).
 * Each `measure({ url, jobs, concurrency, timeoutMs })` gives peer-drain.js's figures.
 */
import { measureBullmq } from './bullmq-peer.js'
import { measureDbos } from './dbos-peer.js'
import { measureGraphileWorker } from './graphile-worker-peer.js'
import { measurePgBoss } from './pg-boss-peer.js'

export const PEERS = {
  redis: [
    {
      key: 'bullmq',
      label: 'BullMQ',
      how: 'jobs added up front, then drained by a Worker with a no-op processor at concurrency c',
      measure: measureBullmq,
    },
  ],
  postgres: [
    {
      key: 'pgBoss',
      label: 'pg-boss',
      how: 'jobs inserted up front, then drained by one work() with batchSize c and a no-op handler that calls notifyWorker when its batch came full',
      measure: measurePgBoss,
    },
    {
      key: 'graphileWorker',
      label: 'graphile-worker',
      how: 'jobs added up front, then drained by a runner with a no-op task at concurrency c (for information: no target)',
      measure: measureGraphileWorker,
    },
    {
      key: 'dbos',
      label: 'DBOS Transact',
      how: 'c clients each running a one-step workflow per message under its own workflow ID and awaiting its result (a job here is a workflow: a whole message)',
      measure: measureDbos,
    },
  ],
}

/** The server a backend's peers run on: the one botmesh ran on. */
export const SERVER_URL_OF = {
  redis: (options) => options.redisUrl,
  postgres: (options) => options.postgresUrl,
}

/** Every peer's key, in the order the peers run. */
export const PEER_KEYS = Object.values(PEERS).flatMap((peers) => peers.map((peer) => peer.key))
