/**
 * What `botmesh doctor` reads from Redis before it judges anything (doctor.ts): each master's
 * `INFO` (server, replication, cluster), its settings as a start reads them (server-settings.ts),
 * whether its connection is TLS, and the server's clock against this machine's. Only reads: no
 * key is touched.
 */
import type { Cluster, Redis } from 'ioredis'
import type { TLSSocket } from 'node:tls'
import type { RedisClient } from './connection.js'
import { readServerSettings, type NodeSettings } from './server-settings.js'

/** One master (the server itself when it is not a Cluster). */
export interface RedisNodeFacts {
  /** `host:port`. */
  address: string
  host: string
  /** `INFO server`, `replication` and `cluster`, merged; undefined where the server refused `INFO`. */
  info: Record<string, string> | undefined
  /** Why `INFO` could not be read. */
  infoRefused?: string
  /** The TLS protocol of our connection to it (`TLSv1.3`); undefined in clear text. */
  tls: string | undefined
}

/** Everything the checks judge. */
export interface RedisFacts {
  nodes: RedisNodeFacts[]
  /** The settings of each master, as a start reads them. */
  settings: NodeSettings[]
}

/** The server's clock minus this machine's (ms), measured in the round trip of `TIME`. */
export interface ClockReading {
  skewMs: number
  roundTripMs: number
}

/** `INFO`'s sections the checks need (several in one `INFO` needs Redis 7, so one call each). */
const INFO_SECTIONS = ['server', 'replication', 'cluster'] as const

/** The masters of a Cluster, or the server itself. */
export function mastersOf(client: RedisClient): Redis[] {
  return 'isCluster' in client && client.isCluster ? (client as Cluster).nodes('master') : [client as Redis]
}

/** Reads the facts over an open client. */
export async function readRedisFacts(client: RedisClient): Promise<RedisFacts> {
  const masters = mastersOf(client)
  const [settings, infos] = await Promise.all([readServerSettings(client), Promise.all(masters.map((node) => readInfo(node)))])
  const nodes = masters.map((node, n) => ({
    address: `${node.options.host ?? 'localhost'}:${node.options.port ?? 6379}`,
    host: node.options.host ?? 'localhost',
    ...infos[n]!,
    tls: tlsProtocol(node),
  }))
  return { nodes, settings }
}

async function readInfo(node: Redis): Promise<{ info: Record<string, string> | undefined; infoRefused?: string }> {
  const pipeline = node.pipeline()
  for (const section of INFO_SECTIONS) pipeline.info(section)
  const replies = (await pipeline.exec()) ?? []
  const info: Record<string, string> = {}
  for (const [error, reply] of replies) {
    if (error) {
      if (error.name === 'ReplyError' && /unknown command|NOPERM|no permissions/i.test(error.message))
        return { info: undefined, infoRefused: `INFO is not allowed there (${error.message})` }
      throw error
    }
    Object.assign(info, parseInfo(String(reply)))
  }
  return { info }
}

/** `INFO`'s `name:value` lines as a record (section headers and blank lines skipped). */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon <= 0 || line.startsWith('#')) continue
    fields[line.slice(0, colon)] = line.slice(colon + 1).trim()
  }
  return fields
}

/**
 * The server's clock minus this machine's: `TIME` against the midpoint of its round trip, the
 * sample with the shortest round trip kept (its midpoint is the closest guess).
 */
export async function readClock(node: Redis, samples: number): Promise<ClockReading> {
  let best: ClockReading | undefined
  for (let n = 0; n < samples; n++) {
    const before = Date.now()
    const [seconds, micros] = await node.time()
    const after = Date.now()
    const serverMs = Number(seconds) * 1_000 + Number(micros) / 1_000
    const sample = { skewMs: serverMs - (before + after) / 2, roundTripMs: after - before }
    if (!best || sample.roundTripMs < best.roundTripMs) best = sample
  }
  return best!
}

function tlsProtocol(node: Redis): string | undefined {
  const stream = node.stream as Partial<TLSSocket> | undefined
  if (!stream || stream.encrypted !== true) return undefined
  return stream.getProtocol?.() ?? 'TLS'
}
