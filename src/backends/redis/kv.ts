/**
 * `RedisKv`: the `DurableKv` of Redis and Redis Cluster. Each (scope, collection) is a group of
 * keys under one hash tag (keys.ts); compare-and-sets are Lua script calls (scripts.ts), each op
 * atomic with its index updates, and the ops of concurrent writes share calls (group-commit.ts). Reads are one
 * HMGET or one read-only script; `count` is a ZCARD per state; `now()` is the server's TIME.
 */
import { type DurableKv, type KvEntry, type KvListQuery, type KvOp, type KvWriteResult, ROOT_SCOPE } from '../../core/spi.js'
import { RedisConnection, type RedisClient, type RedisConnectionOptions } from './connection.js'
import { decodeEnvelope, lexAfter, lexBefore, scoreBound } from './envelope.js'
import { GroupCommit } from './group-commit.js'
import { RedisKeys, type CollectionKeys } from './keys.js'
import { REDIS_LIMITS } from './limits.js'
import { checkServer } from './server-checks.js'
import { assertJournalPresent } from './presence.js'
import { COUNT, DUE, LIST, PURGE, WRITE, runScript, type RedisScript } from './scripts.js'

/** Options of `RedisKv`: how to reach Redis (or a connection to share), and the key prefix. */
export type RedisKvOptions = {
  /** The first part of every key, so several bots or tests can share one Redis. @default 'botmesh' */
  prefix?: string
  /**
   * `start()` refuses a prefix that holds no journal yet (`JOURNAL_MISSING`, naming the prefixes
   * that hold one) instead of starting empty: for tools that read. @default false
   */
  mustExist?: boolean
} & (
  | RedisConnectionOptions
  | {
      /** A connection shared with a `RedisStore` or another `RedisKv`. */
      connection: RedisConnection
    }
)

/** What the root and its scope views share. */
interface Shared {
  connection: RedisConnection
  keys: RedisKeys
  /** (scope, collection) pairs this process has recorded in the scopes set, or is recording. */
  registered: Map<string, Promise<void>>
  /** The members of `registered` whose SADD has completed: their writes need not wait. */
  recorded: Set<string>
  /** The write queue of the connection, shared by every scope view. */
  commits: GroupCommit
  mustExist: boolean
}

/** A `DurableKv` over Redis or Redis Cluster, with scopes. */
export class RedisKv implements DurableKv {
  readonly #shared: Shared
  readonly #scope: string
  #started = false

  /** A root view, over a client of its own or the one given. */
  constructor(options: RedisKvOptions)
  /** @internal A scope view over a root's connection (`scope()`). */
  constructor(options: RedisKvOptions, view: { shared: Shared; scope: string })
  constructor(options: RedisKvOptions, view?: { shared: Shared; scope: string }) {
    this.#shared = view?.shared ?? RedisKv.#share(options)
    this.#scope = view?.scope ?? ROOT_SCOPE
  }

  static #share(options: RedisKvOptions): Shared {
    const connection = 'connection' in options ? options.connection : new RedisConnection(options)
    // A batch is done once it landed and, with waitReplicas, its node's replicas confirmed it.
    const run = async (what: string, keys: string[], args: (string | number)[]) => {
      const reply = await connection.run(what, 'journal', (client) => runScript(client, WRITE, keys, args))
      await connection.confirmWrites(keys[0]!, what)
      return reply
    }
    // A script on one server may touch any keys; in a Cluster only those of one slot (one hash tag).
    const laneOf = (keys: CollectionKeys) => (connection.clustered ? keys.entries : '')
    return {
      connection,
      keys: new RedisKeys(options.prefix),
      registered: new Map(),
      recorded: new Set(),
      commits: new GroupCommit(run, laneOf),
      mustExist: options.mustExist === true,
    }
  }

  /** The key prefix. */
  get prefix(): string {
    return this.#shared.keys.prefix
  }

  /** The connection, shared with the scope views (and with a `RedisStore` that made this). */
  get connection(): RedisConnection {
    return this.#shared.connection
  }

  async start(): Promise<void> {
    if (this.#started) return
    const connection = this.#shared.connection
    await connection.acquire('journal')
    try {
      await checkServer(connection, 'journal')
      if (this.#shared.mustExist) await assertJournalPresent(connection, this.#shared.keys, connection.target)
    } catch (error) {
      await connection.release()
      throw error
    }
    this.#started = true
  }

  async stop(): Promise<void> {
    if (!this.#started) return
    this.#started = false
    await this.#shared.connection.release()
  }

  async now(): Promise<number> {
    const [seconds, micros] = await this.#run('read the server clock', (client) => client.time())
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
  }

  async get(collection: string, keys: readonly string[]): Promise<(KvEntry | undefined)[]> {
    const { entries } = this.#keys(collection)
    const chunks = chunk(keys, REDIS_LIMITS.getBatchMax)
    const replies = await Promise.all(chunks.map((part) => this.#run(`read ${collection}`, (client) => client.hmget(entries, ...part))))
    return replies.flat().map((envelope, n) => (envelope === null ? undefined : decodeEnvelope(keys[n]!, envelope)))
  }

  async write(ops: readonly KvOp[]): Promise<KvWriteResult[]> {
    await this.recorded(new Set(ops.map((op) => op.collection)))
    return this.#shared.commits.write(ops, (collection) => this.#keys(collection))
  }

  /**
   * @internal Resolves once `collections` of this scope are in the scopes set (the steps write
   * them too); `undefined` when they already are, so a step then waits for nothing.
   */
  recorded(collections: Iterable<string>): Promise<void> | undefined {
    const unrecorded = [...collections].filter((collection) => !this.#shared.recorded.has(this.#member(collection)))
    if (unrecorded.length === 0) return undefined
    return Promise.all(unrecorded.map((collection) => this.#register(collection))).then(() => undefined)
  }

  async due(collection: string, until: number, limit: number): Promise<KvEntry[]> {
    if (limit <= 0) return []
    const keys = this.#keys(collection)
    return entriesOf(await this.#script(`read due ${collection}`, DUE, [keys.entries, keys.due], [scoreBound(until), limit]))
  }

  async list(collection: string, query: KvListQuery): Promise<KvEntry[]> {
    if (query.limit <= 0) return []
    const keys = this.#keys(collection)
    const args = [lexAfter(query.after), lexBefore(query.before), query.limit]
    return entriesOf(await this.#script(`list ${collection}`, LIST, [keys.entries, keys.state(query.state)], args))
  }

  async count(collection: string): Promise<Record<string, number>> {
    const keys = this.#keys(collection)
    const reply = (await this.#script(`count ${collection}`, COUNT, [keys.entries, keys.states], [])) as (string | number)[]
    const counts: Record<string, number> = {}
    for (let n = 0; n < reply.length; n += 2) counts[String(reply[n])] = Number(reply[n + 1])
    return counts
  }

  async purge(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    const keys = this.#keys(collection)
    let purged = 0
    // Bounded batches: Redis serves nobody else while a script runs.
    while (purged < limit) {
      const batch = Math.min(limit - purged, REDIS_LIMITS.purgeBatchMax)
      const deleted = Number(
        await this.#script(`purge ${collection}`, PURGE, [keys.entries, keys.due, keys.state(state)], [lexBefore(olderThan), batch]),
      )
      purged += deleted
      if (deleted < batch) break
    }
    return purged
  }

  /** One ZLEXCOUNT: the state index's members sort by time, so a cut by age is a lex range. */
  async countOlder(collection: string, state: string, olderThan: number, limit: number): Promise<number> {
    const index = this.#keys(collection).state(state)
    return Math.min(limit, await this.#run(`count ${collection}`, (client) => client.zlexcount(index, '-', lexBefore(olderThan))))
  }

  /** A view of one scope; it shares this store's connection (start and stop the root). */
  scope(scopeId: string): RedisKv {
    return new RedisKv({ connection: this.#shared.connection }, { shared: this.#shared, scope: scopeId })
  }

  /** The scopes holding entries: those recorded in the scopes set whose entries still exist. */
  async scopes(): Promise<string[]> {
    const pairs = new Set<string>()
    let cursor = '0'
    do {
      const [next, members] = await this.#run('list scopes', (client) =>
        client.sscan(this.#shared.keys.scopes, cursor, 'COUNT', REDIS_LIMITS.scopesScanCount),
      )
      for (const member of members) pairs.add(member)
      cursor = next
    } while (cursor !== '0')
    const candidates = [...pairs].map((member) => JSON.parse(member) as [scope: string, collection: string])
    const held = await Promise.all(
      candidates.map(([scope, collection]) =>
        this.#run('list scopes', (client) => client.exists(this.#shared.keys.collection(scope, collection).entries)),
      ),
    )
    return [...new Set(candidates.filter((_, n) => held[n]! > 0).map(([scope]) => scope))]
  }

  /**
   * Records (scope, collection) in the scopes set before its first write from this process, so
   * `scopes()` finds every scope that holds entries even after a crash right after that write.
   */
  #register(collection: string): Promise<void> {
    const member = this.#member(collection)
    let registering = this.#shared.registered.get(member)
    if (!registering) {
      registering = this.#run('record the scope', (client) => client.sadd(this.#shared.keys.scopes, member)).then(() => {
        this.#shared.recorded.add(member)
      })
      registering.catch(() => this.#shared.registered.delete(member))
      this.#shared.registered.set(member, registering)
    }
    return registering
  }

  #member(collection: string): string {
    return JSON.stringify([this.#scope, collection])
  }

  #keys(collection: string): CollectionKeys {
    return this.#shared.keys.collection(this.#scope, collection)
  }

  #script(what: string, script: RedisScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.#run(what, (client) => runScript(client, script, keys, args))
  }

  #run<T>(what: string, call: (client: RedisClient) => Promise<T>): Promise<T> {
    return this.#shared.connection.run(what, 'journal', call)
  }
}

function entriesOf(reply: unknown): KvEntry[] {
  const flat = reply as string[]
  const entries: KvEntry[] = []
  for (let n = 0; n < flat.length; n += 2) entries.push(decodeEnvelope(flat[n]!, flat[n + 1]!))
  return entries
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const parts: T[][] = []
  for (let n = 0; n < items.length; n += size) parts.push(items.slice(n, n + size))
  return parts
}
