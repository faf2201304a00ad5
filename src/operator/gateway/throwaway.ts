/**
 * Throwaway backends: a fresh, empty backend for each conformance case, crash case or benchmark,
 * removed afterwards. A bare name (`sqlite`, `redis`…) makes them in a temp dir or under a random
 * prefix on the default server; a URL makes them next to what it names (a temp dir beside the
 * file, a random key prefix or table prefix on the same server), so an operator can test their
 * own disk or server without ever touching the data on it.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { DurabilityBackend } from '../../core/spi.js'
import type { BackendTarget } from './backend-url.js'

/** Where bare names put their instances. */
export interface ThrowawayOptions {
  /** The server of a bare `redis`. @default process.env.BOTMESH_REDIS_URL ?? 'redis://127.0.0.1:6379' */
  redisUrl?: string
  /** The server of a bare `postgres`. @default process.env.BOTMESH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' */
  postgresUrl?: string
  /** Connect timeout of server backends. @default 5000 */
  connectTimeoutMs?: number
  /** Receives what a backend cannot throw to anyone (an idle connection dropped). */
  logger?: { error(message: string): void }
  /** Redis only: replicas that must confirm each journal write (`waitReplicas`). @default the URL's, or none */
  waitReplicas?: number
}

/** Makes fresh backends, the backend a restarted process would open, and removes them. */
export interface ThrowawayFactory {
  /** What the instances are, for reports ("sqlite in a temp dir under /tmp"). */
  readonly description: string
  /** A new, empty, not yet started backend. */
  create(): Promise<DurabilityBackend>
  /** The backend a new process opens on the same data after `crashed` died. */
  restart(crashed: DurabilityBackend): Promise<DurabilityBackend>
  /** Stops `backend` whatever its start count, and removes its data. */
  cleanup(backend: DurabilityBackend): Promise<void>
}

export const THROWAWAY_DEFAULTS = {
  redisUrl: 'redis://127.0.0.1:6379',
  postgresUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
} as const

/** A factory of throwaway backends for a bare name or next to what a URL names. */
export function throwawayFactory(target: BackendTarget, options: ThrowawayOptions = {}): ThrowawayFactory {
  switch (target.kind) {
    case 'memory':
      return memoryFactory()
    case 'file':
    case 'sqlite':
      return fileFactory(target.kind, target.throwaway ? tmpdir() : dirname(target.path))
    case 'redis':
      return redisFactory(target, options)
    case 'postgres':
      return postgresFactory(target, options)
    case 'events':
      return eventsFactory(target.shared, target.throwaway ? tmpdir() : dirname(target.path!))
  }
}

function memoryFactory(): ThrowawayFactory {
  return {
    description: 'memory (a new MemoryDurability per run)',
    async create() {
      const { MemoryDurability } = await import('../../core/durability/memory/memory-durability.js')
      return new MemoryDurability()
    },
    restart: async (crashed) => crashed,
    cleanup: async () => {},
  }
}

/** How a store kept in a file is made in a temp dir and let go of before its dir is removed or reopened. */
interface TempDirStore {
  description: string
  open(dir: string): Promise<DurabilityBackend>
  release(backend: DurabilityBackend): Promise<void>
}

const TEMP_DIR_STORES: Record<'file' | 'sqlite', TempDirStore> = {
  file: {
    description: 'FileDurability (appendLog, fsync)',
    async open(dir) {
      const { FileDurability } = await import('../../backends/file/index.js')
      return FileDurability.open(join(dir, 'durable.json'), { appendLog: true })
    },
    release: (backend) => (backend as import('../../backends/file/index.js').FileDurability).close(),
  },
  sqlite: {
    description: 'SQLiteDurability (WAL)',
    async open(dir) {
      const { SQLiteDurability } = await import('../../backends/sqlite/index.js')
      return new SQLiteDurability({ file: join(dir, 'bot.db') })
    },
    release: (backend) => (backend as import('../../backends/sqlite/index.js').SQLiteDurability).kv.stop(),
  },
}

function fileFactory(kind: 'file' | 'sqlite', parent: string): ThrowawayFactory {
  const dirs = new Map<DurabilityBackend, string>()
  const { open, release } = TEMP_DIR_STORES[kind]
  return {
    description: `${TEMP_DIR_STORES[kind].description} in a temp dir under ${parent}`,
    async create() {
      const dir = await mkdtemp(join(parent, '.botmesh-throwaway-'))
      const backend = await open(dir)
      dirs.set(backend, dir)
      return backend
    },
    async restart(crashed) {
      const dir = dirs.get(crashed)!
      await release(crashed)
      const backend = await open(dir)
      dirs.set(backend, dir)
      // Forgotten only now: a restart that fails or is given up on still lets cleanup(crashed) remove the dir.
      dirs.delete(crashed)
      return backend
    },
    async cleanup(backend) {
      await release(backend).catch(() => {})
      const dir = dirs.get(backend)
      dirs.delete(backend)
      if (dir) await rm(dir, { recursive: true, force: true })
    },
  }
}

function eventsFactory(shared: boolean, parent: string): ThrowawayFactory {
  type Events = import('../../backends/events/durability.js').EventsDurability
  const dirs = new Map<DurabilityBackend, string>()
  const open = async (dir: string): Promise<Events> => {
    const { FileEventJournal, SharedFileEventJournal } = await import('../../events/index.js')
    const { eventsDurability } = await import('../../backends/events/durability.js')
    const path = join(dir, 'events.json')
    return eventsDurability({
      journal: shared ? await SharedFileEventJournal.open(path) : await FileEventJournal.open(path, { lock: true }),
    })
  }
  return {
    description: `eventsDurability over a ${shared ? 'SharedFileEventJournal' : 'locked FileEventJournal'} in a temp dir under ${parent}`,
    async create() {
      const dir = await mkdtemp(join(parent, '.botmesh-throwaway-'))
      const backend = await open(dir)
      dirs.set(backend, dir)
      return backend
    },
    async restart(crashed) {
      const dir = dirs.get(crashed)!
      await (crashed as Events).journalOfEvents.close()
      const backend = await open(dir)
      dirs.set(backend, dir)
      dirs.delete(crashed)
      return backend
    },
    async cleanup(backend) {
      await (backend as Events).journalOfEvents.close().catch(() => {})
      const dir = dirs.get(backend)
      dirs.delete(backend)
      if (dir) await rm(dir, { recursive: true, force: true })
    },
  }
}

/** What throwaway instances say: errors, and what a start finds about the server. */
export interface ThrowawayLog {
  error(message: string): void
  warn(message: string): void
  info(message: string): void
}

/**
 * The log of one factory's instances. They all run on one server, so what a start says about it
 * (no persistence, settings that cannot be read) is said once per factory, not by every instance
 * of every case: a crash matrix opens dozens.
 */
export function throwawayLog(errors: { error(message: string): void } = console): ThrowawayLog {
  const said = new Set<string>()
  const once = (say: (message: string) => void) => (message: string) => {
    if (said.has(message)) return
    said.add(message)
    say(message)
  }
  return { error: (message) => errors.error(message), warn: once(console.warn), info: once(console.info) }
}

function redisFactory(target: Extract<BackendTarget, { kind: 'redis' }>, options: ThrowawayOptions): ThrowawayFactory {
  const suffix = () => `throwaway-${randomBytes(6).toString('hex')}`
  const logger = throwawayLog(options.logger)
  const { redis, description } = target.throwaway
    ? {
        redis: { url: options.redisUrl ?? process.env.BOTMESH_REDIS_URL ?? THROWAWAY_DEFAULTS.redisUrl, prefix: 'botmesh' },
        description: 'Redis',
      }
    : { redis: target.redis, description: `Redis at ${target.label}` }
  type Redis = import('../../backends/redis/index.js').RedisDurability
  const make = async (prefix: string): Promise<Redis> => {
    const { RedisDurability } = await import('../../backends/redis/index.js')
    const { prefix: _prefix, prefixGiven: _given, ...connection } = redis as typeof redis & { prefixGiven?: boolean }
    const waiting = options.waitReplicas === undefined ? {} : { waitReplicas: options.waitReplicas }
    return new RedisDurability({ ...connection, ...waiting, prefix, connectTimeoutMs: options.connectTimeoutMs, logger })
  }
  return {
    description: `${description}, under a random key prefix ${redis.prefix}-throwaway-…`,
    create: () => make(`${redis.prefix}-${suffix()}`),
    async restart(crashed) {
      const old = crashed as Redis
      await old.kv.stop()
      return make(old.prefix)
    },
    async cleanup(backend) {
      const prefix = (backend as Redis).prefix
      // Through a fresh connection: the case's own may be stopped (a restart cut off) or held by a dead bot.
      await (backend as Redis).kv.stop()
      const fresh = await make(prefix)
      try {
        await fresh.start()
        await fresh.kv.connection.run('remove throwaway keys', 'journal', async (client) =>
          (await import('../../backends/redis/delete-keys.js')).deleteKeys(client, `${prefix}:*`),
        )
      } finally {
        await fresh.stop()
      }
    },
  }
}

function postgresFactory(target: Extract<BackendTarget, { kind: 'postgres' }>, options: ThrowawayOptions): ThrowawayFactory {
  const connectionString = target.throwaway
    ? (options.postgresUrl ?? process.env.BOTMESH_POSTGRES_URL ?? THROWAWAY_DEFAULTS.postgresUrl)
    : target.connectionString
  // A table prefix is at most 40 characters; a long one of the operator's is not reused.
  const given = target.throwaway ? undefined : target.tablePrefix
  const base = given && given.length <= 24 ? given : 'botmesh_'
  const logger = throwawayLog(options.logger)
  type Postgres = import('../../backends/postgres/index.js').PostgresDurability
  const make = async (tablePrefix: string): Promise<Postgres> => {
    const { PostgresDurability } = await import('../../backends/postgres/index.js')
    return new PostgresDurability({ connectionString, tablePrefix, connectTimeoutMs: options.connectTimeoutMs, logger })
  }
  return {
    description: `PostgreSQL${target.throwaway ? '' : ` at ${target.label}`}, under a random table prefix ${base}tmp_…`,
    create: () => make(`${base}tmp_${randomBytes(5).toString('hex')}_`),
    async restart(crashed) {
      const old = crashed as Postgres
      await old.kv.stop()
      return make(old.kv.tables.prefix)
    },
    async cleanup(backend) {
      const tables = (backend as Postgres).kv.tables
      // Through a fresh pool: the case's own may be stopped (a restart cut off) or held by a dead bot.
      await (backend as Postgres).kv.stop()
      const fresh = await make(tables.prefix)
      try {
        await fresh.start()
        await fresh.kv.connection.query(
          `DROP TABLE IF EXISTS ${tables.durable}, ${tables.legacy.counts} CASCADE; DROP FUNCTION IF EXISTS ${tables.legacy.countsFunction}() CASCADE`,
        )
      } finally {
        await fresh.stop()
      }
    },
  }
}
