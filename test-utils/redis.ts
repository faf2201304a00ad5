/**
 * Redis for tests: whether the machine's Redis is there (a loud skip off CI, a failure under
 * CI=true), random key prefixes and their cleanup, and private `redis-server` processes (one with
 * any flags, e.g. AOF on, that can be killed and restarted on the same dir and port; or a 3-node
 * Cluster) started on spare ports in temp dirs and stopped by pid.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Cluster, Redis } from 'ioredis'

const run = promisify(execFile)

/** The machine's Redis, as DESIGN.md §8 names it. */
export const REDIS_URL = process.env.BOTMESH_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

const onCi = process.env.CI === 'true'

/**
 * Counts the commands `client` (a server's or a Cluster's) sends into `sent` (their names): a
 * wrapper in the test, no flag in the backend.
 */
export function recordCommands(client: Redis | Cluster, sent: string[]): void {
  const send = client.sendCommand.bind(client) as (command: { name: string }, ...rest: unknown[]) => unknown
  client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    sent.push(command.name)
    return send(command, ...rest)
  }) as typeof client.sendCommand
}

/**
 * Resolves once the turn of the event loop a write's reply started is over: a group-commit lane
 * that rested after that reply (group-commit.ts) sends the next write at once again.
 */
export const laneRested = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Whether the machine's Redis answers. Off CI a missing server is a loud line and `false` (the
 * caller skips); under CI=true it throws, so the run fails.
 */
export async function redisAvailable(what: string): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  let cause = ''
  client.on('error', (error: Error) => (cause ||= error.message))
  try {
    await client.connect()
    await client.ping()
    return true
  } catch (error) {
    return missing(what, `no Redis answers at ${REDIS_URL} (${cause || (error instanceof Error ? error.message : String(error))})`)
  } finally {
    client.disconnect()
  }
}

/** Whether `redis-server` and `redis-cli` are installed (for private servers); same rule as `redisAvailable`. */
export async function redisBinariesAvailable(what: string): Promise<boolean> {
  try {
    await run('redis-server', ['--version'])
    await run('redis-cli', ['--version'])
    return true
  } catch (error) {
    return missing(what, `redis-server / redis-cli are not installed (${error instanceof Error ? error.message : String(error)})`)
  }
}

function missing(what: string, reason: string): false {
  if (onCi) throw new Error(`${what}: ${reason}; CI=true, so this fails instead of skipping`)
  console.warn(`\n!!!!!!!! SKIPPED ${what}: ${reason}. Under CI=true this fails. !!!!!!!!\n`)
  return false
}

/** A prefix no other test uses: `bmtest-<random>`. */
export function randomPrefix(): string {
  return `bmtest-${randomUUID().replace(/-/g, '').slice(0, 16)}`
}

/** Every key matching a SCAN pattern, on every master of a Cluster or on a standalone server. */
export async function scanKeys(client: Redis | Cluster, pattern: string): Promise<string[]> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client]
  const keys: string[] = []
  for (const node of nodes) {
    let cursor = '0'
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000)
      keys.push(...found)
      cursor = next
    } while (cursor !== '0')
  }
  return keys
}

/** Deletes every key under `<prefix>:` (one key per DEL, so a Cluster never sees a cross-slot call). */
export async function deletePrefix(client: Redis | Cluster, prefix: string): Promise<number> {
  const keys = await scanKeys(client, `${prefix}:*`)
  await Promise.all(keys.map((key) => client.del(key)))
  return keys.length
}

/** A private redis-server. */
export interface RedisServer {
  port: number
  url: string
  dir: string
  /** The current process's pid. */
  readonly pid: number
  /** SIGKILL: no shutdown, no final fsync. Resolves once the process is gone. */
  kill(): Promise<void>
  /** Starts it again on the same dir, port and flags; resolves once it answers PING (AOF loaded). */
  restart(): Promise<void>
  /** Stops it (SIGTERM, SIGKILL if it lingers) and removes its dir. */
  stop(): Promise<void>
}

/** TLS of a private server: its port speaks TLS only, and clients must show a certificate the CA signed. */
export interface RedisServerTls {
  caFile: string
  certFile: string
  keyFile: string
  /** A client certificate and key the server accepts (for the start-up PING). */
  clientCertFile: string
  clientKeyFile: string
}

/**
 * Starts a redis-server on a spare port in a fresh temp dir with extra flags (e.g. ['--appendonly',
 * 'yes']); with `tls`, the port speaks TLS only (`--port 0 --tls-port`) and its `url` is `rediss://`.
 */
export async function startRedisServer(
  options: { flags?: string[]; clusterBus?: boolean; tls?: RedisServerTls } = {},
): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-redis-'))
  for (let attempt = 0; ; attempt++) {
    const port = await sparePort(options.clusterBus ?? false)
    try {
      return await launch(dir, port, options.flags ?? [], options.tls)
    } catch (error) {
      // Another process may have taken the port between the check and the bind: try another.
      if (attempt >= 4) {
        rmSync(dir, { recursive: true, force: true })
        throw error
      }
    }
  }
}

async function launch(dir: string, port: number, flags: string[], tls: RedisServerTls | undefined): Promise<RedisServer> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    ...(tls ? ['--tls-port', String(port), '--port', '0', '--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile] : []),
    ...(tls ? ['--tls-ca-cert-file', tls.caFile, '--tls-auth-clients', 'yes'] : []),
    ...flags,
  ]
  const cliTls = tls ? ['--tls', '--cacert', tls.caFile, '--cert', tls.clientCertFile, '--key', tls.clientKeyFile] : []
  let child = await spawnServer(args, port, cliTls)
  const server: RedisServer = {
    port,
    url: `${tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    dir,
    get pid() {
      return child.pid!
    },
    async kill() {
      await terminate(child, 'SIGKILL')
    },
    async restart() {
      await terminate(child, 'SIGKILL')
      child = await spawnServer(args, port, cliTls)
    },
    async stop() {
      await terminate(child, 'SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return server
}

const live = new Set<ChildProcess>()
// A test that dies before its afterAll must not leave servers behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

async function spawnServer(args: string[], port: number, cliTls: string[] = []): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  live.add(child)
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)))
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.once('exit', () => live.delete(child))
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server on port ${port} exited at start:\n${output}`)
    if ((await cli(port, ...cliTls, 'PING').catch(() => '')) === 'PONG') return child
    await Promise.race([exited, delay(50)])
  }
  await terminate(child, 'SIGKILL')
  throw new Error(`redis-server on port ${port} did not answer PING within 20 s:\n${output}`)
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill(signal)
  const lingering = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(lingering)
}

/** A private Redis Cluster: masters, each with `replicas` replicas. */
export interface RedisClusterServers {
  nodes: { host: string; port: number }[]
  servers: RedisServer[]
  stop(): Promise<void>
}

/**
 * Starts `size` masters and `replicas` replicas of each (cluster-enabled servers), joins them with
 * `redis-cli --cluster create` and waits for cluster_state:ok and, with replicas, for each replica's
 * link to its master to be up.
 */
export async function startRedisCluster(size = 3, replicas = 0): Promise<RedisClusterServers> {
  const servers: RedisServer[] = []
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()))
  }
  try {
    for (let n = 0; n < size * (1 + replicas); n++) {
      servers.push(
        await startRedisServer({
          clusterBus: true,
          flags: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'],
        }),
      )
    }
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`)
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], {
      timeout: 30_000,
    })
    const deadline = Date.now() + 30_000
    for (const server of servers) {
      while (!(await cli(server.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) {
        if (Date.now() > deadline) throw new Error(`the cluster did not reach cluster_state:ok on port ${server.port} within 30 s`)
        await delay(100)
      }
      while (replicas > 0 && !(await replicasLinked(server.port, size, replicas))) {
        if (Date.now() > deadline) throw new Error(`the replicas were not linked to their masters within 30 s (port ${server.port})`)
        await delay(100)
      }
    }
    return { nodes: servers.map((server) => ({ host: '127.0.0.1', port: server.port })), servers, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Whether the node on `port` is linked to its master (a replica) or has `replicas` online (a master),
 * and knows all `size * replicas` replicas of the cluster (a client's slot map lists them then: one
 * made earlier drops its connections to the replicas it does not find there yet).
 */
async function replicasLinked(port: number, size: number, replicas: number): Promise<boolean> {
  const info = await cli(port, 'INFO', 'replication')
  const linked = info.includes('role:slave')
    ? info.includes('master_link_status:up')
    : (info.match(/^slave\d+:.*state=online/gm) ?? []).length >= replicas
  const nodes = (await cli(port, 'CLUSTER', 'NODES')).split('\n')
  const flags = nodes.map((line) => (line.split(' ')[2] ?? '').split(','))
  return linked && flags.filter((flag) => flag.includes('slave') && !flag.includes('fail')).length >= size * replicas
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5_000 })
  return stdout.trim()
}

/** A free port (and, for a Cluster node, a free bus port at +10000). */
async function sparePort(clusterBus: boolean): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    if ((await free(port)) && (!clusterBus || (await free(port + 10_000)))) return port
  }
  throw new Error('no spare port found')
}

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/** Tries of a write that must be confirmed by `waitReplicas`: a loaded machine's replica may take longer than the wait's timeout. */
const CONFIRM_TRIES = 50

/** `write`, tried again while the replicas do not confirm it in time (JOURNAL_UNAVAILABLE); its compare-and-set makes each try safe. */
export async function confirmed<T>(write: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await write()
    } catch (error) {
      if ((error as { code?: string }).code !== 'JOURNAL_UNAVAILABLE' || tries >= CONFIRM_TRIES) throw error
    }
  }
}

/** Polls `check` until it returns true, or throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await delay(50)
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
