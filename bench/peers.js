/**
 * The queues a user would pick instead of botmesh, by backend, each measured right after the
 * botmesh run of the same backend and concurrency, on the same server. `key` names the peer's
 * figures on a row of `npm run bench` (`bullmq`, `bullmqRatio`: botmesh msg/s ÷ its jobs/s).
 * One job is half a botmesh message: a message is an inbound journaled and a reply through the outbox.
 * Each `measure({ url, jobs, concurrency, timeoutMs })` gives peer-drain.js's figures.
 */
import { measureBullmq } from './bullmq-peer.js'
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
  ],
}

/** The server a backend's peers run on: the one botmesh ran on. */
export const SERVER_URL_OF = {
  redis: (options) => options.redisUrl,
  postgres: (options) => options.postgresUrl,
}

/** Every peer's key, in the order the peers run. */
export const PEER_KEYS = Object.values(PEERS).flatMap((peers) => peers.map((peer) => peer.key))
