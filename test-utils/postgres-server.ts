/**
 * A private PostgreSQL for tests that need a server configured their way (SSL on, a pg_hba.conf of
 * their own, a streaming standby): `initdb` in a temp dir (or `pg_basebackup -R` from another
 * private server, for a standby) and `postgres` on a spare port, stopped by pid. The machine's
 * PostgreSQL is never touched. PostgreSQL refuses to run as root, so under root the cluster belongs
 * to the `postgres` user and its processes run as that user. `kill()` takes the postmaster and
 * every process it started at once, as a machine's death would (each of them leads a session of its
 * own, so no group signal reaches them all: they are found by their parent).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)

/** The directory of the newest installed PostgreSQL's binaries, if any. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : undefined
}

/**
 * Whether `tools` (by default initdb and postgres) are installed; off CI a missing one is a loud
 * line and `false`, under CI=true it throws.
 */
export function postgresBinariesAvailable(what: string, tools: readonly string[] = ['initdb', 'postgres']): boolean {
  const bin = binDir()
  if (bin && tools.every((tool) => existsSync(join(bin, tool)))) return true
  const reason = `${tools.join(' / ')} are not installed under /usr/lib/postgresql/*/bin`
  if (process.env.CI === 'true') throw new Error(`${what}: ${reason}; CI=true, so this fails instead of skipping`)
  console.warn(`\n!!!!!!!! SKIPPED ${what}: ${reason}. Under CI=true this fails. !!!!!!!!\n`)
  return false
}

/** A running private server. */
export interface PostgresServer {
  port: number
  /** Its temp dir: the data dir is `data` in it, and its Unix socket is there. */
  dir: string
  /** The postmaster's pid. */
  pid: number
  /** SIGKILL to the postmaster and every process of the server at once; resolves once the postmaster is gone. */
  kill(): Promise<void>
  /** Stops it (fast shutdown, SIGKILL if it lingers; a frozen process is thawed first) and removes its dir. */
  stop(): Promise<void>
}

/** What the server runs with. */
export interface PostgresServerOptions {
  /** `-c name=value` settings (`ssl: 'on'`, …); `listen_addresses` defaults to 127.0.0.1. */
  settings?: Record<string, string>
  /** The lines of pg_hba.conf (a standby takes its primary's). */
  hba?: string[]
  /** Files copied into the data dir (readable by the server only), by the name settings give them. */
  files?: Record<string, string>
  /**
   * A streaming standby of this server instead of a fresh cluster: `pg_basebackup -R` copies it
   * (the primary's pg_hba.conf must let `replication` in over TCP from 127.0.0.1).
   */
  standbyOf?: PostgresServer
}

/** Starts a fresh cluster on a spare port. */
export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const bin = binDir()!
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-pg-'))
  const owner = process.getuid?.() === 0 ? await userIds('postgres') : undefined
  const own = (path: string) => owner && chownSync(path, owner.uid, owner.gid)
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {}
  own(dir)
  const data = join(dir, 'data')
  try {
    if (options.standbyOf) await copyForStandby(bin, options.standbyOf, data, as)
    else await run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { ...as, timeout: 120_000 })
    if (options.hba) writeFileSync(join(data, 'pg_hba.conf'), `${options.hba.join('\n')}\n`)
    for (const [name, source] of Object.entries(options.files ?? {})) {
      copyFileSync(source, join(data, name))
      chmodSync(join(data, name), 0o600)
      own(join(data, name))
    }
    own(join(data, 'pg_hba.conf'))
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const settings = { listen_addresses: '127.0.0.1', fsync: 'off', unix_socket_directories: dir, ...options.settings }
  const port = await sparePort()
  const args = ['-D', data, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])]
  const child = spawn(join(bin, 'postgres'), args, { ...as, stdio: ['ignore', 'pipe', 'pipe'] })
  live.add(child)
  child.once('exit', () => live.delete(child))
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)))
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000)))
  const stop = async () => {
    await terminate(child)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitReady(child, dir, port, () => output)
  } catch (error) {
    await stop()
    throw error
  }
  const kill = async () => {
    const exited = new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    )
    signalServer(child, 'SIGKILL')
    await exited
  }
  return { port, dir, pid: child.pid!, kill, stop }
}

/** Copies a running server into `data` as its streaming standby (standby.signal and primary_conninfo written by -R). */
async function copyForStandby(bin: string, primary: PostgresServer, data: string, as: { uid?: number; gid?: number }): Promise<void> {
  const args = [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    data,
    '-R',
    '-X',
    'stream',
    '--checkpoint=fast',
    '--no-sync',
  ]
  await run(join(bin, 'pg_basebackup'), args, { ...as, timeout: 120_000 })
}

const live = new Set<ChildProcess>()
// A test that dies before its afterAll must not leave servers behind.
process.once('exit', () => {
  for (const child of live) signalServer(child, 'SIGKILL')
})

/**
 * Signals the postmaster and every process it started. For SIGKILL the postmaster is stopped first,
 * so it forks nothing between the listing of its children and the kill. A process already gone is
 * no error.
 */
function signalServer(child: ChildProcess, signal: NodeJS.Signals): void {
  const postmaster = child.pid!
  const send = (pid: number, what: NodeJS.Signals) => {
    try {
      process.kill(pid, what)
    } catch {
      // ESRCH: it is gone already.
    }
  }
  if (signal === 'SIGKILL') send(postmaster, 'SIGSTOP')
  for (const pid of childrenOf(postmaster)) send(pid, signal)
  send(postmaster, signal)
}

/** The pids whose parent is `parent` (Linux's /proc; none elsewhere). */
function childrenOf(parent: number): number[] {
  if (!existsSync('/proc')) return []
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return []
    try {
      // The parent is the 2nd field after the command, which sits in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent ? [Number(name)] : []
    } catch {
      return []
    }
  })
}

async function userIds(name: string): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', name])
  const { stdout: gid } = await run('id', ['-g', name])
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) }
}

/** A server (a standby replaying its base backup included) that does not accept connections within this time fails the test. */
const READY_TIMEOUT_MS = 120_000

/**
 * Waits until the server accepts a connection over its Unix socket in `dir` (whatever pg_hba says
 * of TCP, and without TLS: over TCP, a client asking for TLS hears a refusal before the server is
 * ready). A refusal that says the server is not ready yet is waited out; any other answer means it is.
 */
async function waitReady(child: ChildProcess, dir: string, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres on port ${port} exited at start:\n${output()}`)
    const probe = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' })
    probe.on('error', () => {})
    const ready = await probe.connect().then(
      () => true,
      (error: Error) => !/ECONNREFUSED|ENOENT|starting up|not yet accepting|shutting down|terminat/i.test(error.message),
    )
    await probe.end().catch(() => {})
    if (ready) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`postgres on port ${port} did not accept connections within ${READY_TIMEOUT_MS} ms:\n${output()}`)
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  // A process a test froze would hold the shutdown up.
  signalServer(child, 'SIGCONT')
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // SIGINT is PostgreSQL's fast shutdown.
  child.kill('SIGINT')
  const lingering = setTimeout(() => signalServer(child, 'SIGKILL'), 15_000)
  await exited
  clearTimeout(lingering)
}

async function sparePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer()
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error('no spare port found')
}
