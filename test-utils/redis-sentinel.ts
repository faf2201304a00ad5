/**
 * A private Redis behind Sentinel for failover tests: a primary and a replica (`startRedisServer`,
 * test-utils/redis.ts) and one or three sentinels (`redis-server sentinel.conf --sentinel`), each on
 * a spare port in a temp dir, with a short `down-after-milliseconds` and `failover-timeout` so a
 * failover takes seconds. Everything is stopped by pid (`stop()`), and killed at exit if a test
 * died before its cleanup.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { startRedisServer, type RedisServer } from './redis.js'
import { waitFor } from './wait.js'

const run = promisify(execFile)

/** The master name the sentinels monitor. */
export const MASTER_NAME = 'botmesh-primary'
/** A node not answering PING this long is down (subjectively) for a sentinel. */
const DOWN_AFTER_MS = 1_000
/** How long a failover may take before the sentinels try again (also the pause between two). */
const FAILOVER_TIMEOUT_MS = 4_000
/** Setup and promotions wait at most this long: a bound for a loaded machine, never a speed assertion. */
const STATE_TIMEOUT_MS = 60_000

/** The primary, the replica and the sentinels of one test. */
export interface SentinelGroup {
  /** The node that was the primary at start, and the one that was its replica. */
  primary: RedisServer
  replica: RedisServer
  sentinelPorts: number[]
  /** `redis+sentinel://127.0.0.1:p1,…/<master name>?prefix=…`. */
  url(prefix: string): string
  /** The port of the primary the sentinels name now. */
  primaryPort(): Promise<number>
  /** `SENTINEL FAILOVER` on the first sentinel, asked again while it has no replica it can vouch for yet. */
  failover(): Promise<void>
  /** Waits until the sentinels name `server` the primary and it says it is one. */
  waitForPrimary(server: RedisServer, timeoutMs?: number): Promise<void>
  /** SIGSTOP / SIGCONT of a node, by pid. */
  freeze(server: RedisServer): void
  thaw(server: RedisServer): void
  /** Stops every process by pid and removes their dirs. */
  stop(): Promise<void>
}

/** Starts a primary, its replica and `sentinels` sentinels (quorum: a majority), and waits until they see each other. */
export async function startSentinelGroup(options: { sentinels: 1 | 3; flags?: string[] }): Promise<SentinelGroup> {
  const flags = options.flags ?? []
  const sentinels: { child: ChildProcess; port: number; dir: string }[] = []
  const servers: RedisServer[] = []
  const stop = async () => {
    for (const server of servers) signal(server, 'SIGCONT')
    await Promise.all([...servers.map((server) => server.stop()), ...sentinels.map(stopSentinel)])
  }
  try {
    const primary = await startRedisServer({ flags })
    servers.push(primary)
    const replica = await startRedisServer({ flags: [...flags, '--replicaof', '127.0.0.1', String(primary.port)] })
    servers.push(replica)
    await waitFor(async () => (await cli(replica.port, 'INFO', 'replication')).includes('master_link_status:up'), {
      timeoutMs: STATE_TIMEOUT_MS,
      intervalMs: 50,
      message: 'the replica in sync with the primary',
    })
    const quorum = Math.floor(options.sentinels / 2) + 1
    for (let n = 0; n < options.sentinels; n++) sentinels.push(await startSentinel(primary.port, quorum))
    const ports = sentinels.map((sentinel) => sentinel.port)
    await waitForSentinels(ports, replica.port)
    const group: SentinelGroup = {
      primary,
      replica,
      sentinelPorts: ports,
      url: (prefix) => `redis+sentinel://${ports.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}?prefix=${prefix}`,
      primaryPort: () => namedPrimary(ports[0]!),
      failover: async () => {
        // NOGOODSLAVE: the sentinel's last INFO of the replica is too old to vouch for it (its refresh
        // is 10 s apart, later on a loaded machine); asked again until it has a fresh one.
        let reply = ''
        await waitFor(
          async () => {
            reply = await cli(ports[0]!, 'SENTINEL', 'FAILOVER', MASTER_NAME)
            return !reply.startsWith('NOGOODSLAVE')
          },
          { timeoutMs: STATE_TIMEOUT_MS, intervalMs: 500, message: 'a sentinel with a replica it can promote' },
        )
        if (reply !== 'OK') throw new Error(`SENTINEL FAILOVER said ${reply}`)
      },
      waitForPrimary: async (server, timeoutMs = STATE_TIMEOUT_MS) => {
        await waitFor(
          async () => {
            const named = await Promise.all(ports.map((port) => namedPrimary(port).catch(() => 0)))
            return named.every((port) => port === server.port) && (await cli(server.port, 'ROLE')).startsWith('master')
          },
          { timeoutMs, intervalMs: 100, message: `every sentinel naming port ${server.port} the primary, and it a primary` },
        )
      },
      freeze: (server) => signal(server, 'SIGSTOP'),
      thaw: (server) => signal(server, 'SIGCONT'),
      stop,
    }
    return group
  } catch (error) {
    await stop()
    throw error
  }
}

/** The port of the primary a sentinel names now. */
async function namedPrimary(sentinelPort: number): Promise<number> {
  return Number((await cli(sentinelPort, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)).split('\n')[1])
}

/** Signals a server's current process; one already gone is left alone. */
function signal(server: RedisServer, name: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(server.pid, name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

/** Waits until every sentinel knows the replica and (with three) the other sentinels: a failover needs both. */
async function waitForSentinels(ports: number[], replicaPort: number): Promise<void> {
  for (const port of ports) {
    await waitFor(
      async () => {
        const master = fields(await cli(port, 'SENTINEL', 'MASTER', MASTER_NAME))
        const replicas = await cli(port, 'SENTINEL', 'REPLICAS', MASTER_NAME)
        return Number(master['num-other-sentinels']) === ports.length - 1 && replicas.includes(String(replicaPort))
      },
      { timeoutMs: STATE_TIMEOUT_MS, intervalMs: 100, message: `sentinel ${port} knowing the replica and the other sentinels` },
    )
  }
}

const live = new Set<ChildProcess>()
// A test that dies before its cleanup must not leave sentinels behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

async function startSentinel(primaryPort: number, quorum: number): Promise<{ child: ChildProcess; port: number; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-sentinel-'))
  const port = await freePort()
  const conf = join(dir, 'sentinel.conf')
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      'daemonize no',
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primaryPort} ${quorum}`,
      `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`,
      '',
    ].join('\n'),
  )
  const child = spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'ignore', 'pipe'] })
  live.add(child)
  child.once('exit', () => live.delete(child))
  let output = ''
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)))
  try {
    await waitFor(async () => (await cli(port, 'PING').catch(() => '')) === 'PONG', {
      timeoutMs: STATE_TIMEOUT_MS,
      intervalMs: 50,
      message: `sentinel on port ${port} answering PING`,
    })
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`${(error as Error).message}\n${output}`)
  }
  return { child, port, dir }
}

async function stopSentinel({ child, dir }: { child: ChildProcess; dir: string }): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGKILL')
    await exited
  }
  rmSync(dir, { recursive: true, force: true })
}

/** `redis-cli` against 127.0.0.1:port, its output trimmed. */
export async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })
  return stdout.trim()
}

/** A flat `name\nvalue\n…` reply as an object. */
function fields(reply: string): Record<string, string> {
  const lines = reply.split('\n')
  const out: Record<string, string> = {}
  for (let n = 0; n + 1 < lines.length; n += 2) out[lines[n]!] = lines[n + 1]!
  return out
}

/** A port the kernel just handed out and took back: free unless someone takes it first. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
