/**
 * `PowerLossFs`: a file system wrapper that can cut the power. Every operation goes to the real
 * file system (so the process sees its own writes, as through the OS cache), while the wrapper
 * keeps a model of what the device holds: a file's content as of its last fsync, and a
 * directory's names as of its last fsync. At the cut, every write since the file's last fsync is
 * dropped, kept, or kept in part (a prefix), by a seeded choice; names created, renamed or removed
 * since their directory's last fsync are undone; the real files are rewritten to that state, every
 * handle still open is closed (a process that lost its power holds no descriptor), and every later
 * call fails. A SIGKILL cannot show a missing fsync (the OS still flushes what the
 * process wrote): this can.
 *
 * Limits of the model: directories are created durably at once; only files the wrapper touched are
 * modelled; a torn write keeps a prefix (devices that persist a later sector and lose an earlier
 * one are not modelled).
 */
import { dirname, resolve } from 'node:path'
import type { FileHandle, FileStat, FileSystem, OpenHow } from '../core/platform/file-system.js'
import { seededRandom } from './crash-matrix/random.js'
import { applyOp, powerLost, settle, type Inode, type PendingOp, type PowerLossFileOutcome, type WriteCounts } from './power-loss-device.js'

export type { PowerLossFileOutcome } from './power-loss-device.js'

/** Options of `PowerLossFs`. */
export interface PowerLossOptions {
  /** Seeds every drop / keep / tear choice. */
  seed: number
  /** Cut the power just before the n-th operation (1-based; handle operations count too). */
  cutAtOperation?: number
}

/** A file system whose power can be cut (see the module comment). */
export class PowerLossFs implements FileSystem {
  readonly #inner: FileSystem
  readonly #random: () => number
  readonly #cutAt: number | undefined
  readonly #inodes: Inode[] = []
  /** Names now (path → inode index), for modelled paths. */
  readonly #names = new Map<string, number>()
  /** Names as of each directory's last fsync (null: durably absent). */
  readonly #durableNames = new Map<string, number | null>()
  readonly #learning = new Map<string, Promise<void>>()
  readonly #inFlight = new Set<Promise<unknown>>()
  /** Handles opened through it and not closed yet: the cut closes them. */
  readonly #handles = new Set<FileHandle>()
  #operations = 0
  #loss: Promise<PowerLossFileOutcome[]> | undefined
  #announceLoss!: (loss: Promise<PowerLossFileOutcome[]>) => void
  readonly #lossAnnounced = new Promise<Promise<PowerLossFileOutcome[]>>((resolve) => (this.#announceLoss = resolve))

  constructor(inner: FileSystem, options: PowerLossOptions) {
    this.#inner = inner
    this.#random = seededRandom(options.seed)
    this.#cutAt = options.cutAtOperation
  }

  /** Operations made so far (to pick a cut point for a later run). */
  get operations(): number {
    return this.#operations
  }

  /** Whether the power was cut. */
  get lost(): boolean {
    return this.#loss !== undefined
  }

  /** Cuts the power now: waits for operations in flight, applies the model to the real files. Idempotent. */
  powerLoss(): Promise<PowerLossFileOutcome[]> {
    if (!this.#loss) {
      this.#loss = Promise.allSettled([...this.#inFlight])
        .then(() => Promise.allSettled([...this.#handles].map((handle) => handle.close())))
        .then(() => this.#applyLoss())
      this.#announceLoss(this.#loss)
    }
    return this.#loss
  }

  /** Resolves with the cut's outcome once the power was cut (by `powerLoss()` or `cutAtOperation`). */
  async whenLost(): Promise<PowerLossFileOutcome[]> {
    return await this.#lossAnnounced
  }

  /** Opens a file through the wrapped file system, remembering its synced content for the cut. */
  open(path: string, how: OpenHow, mode?: number): Promise<FileHandle> {
    return this.#run(async () => {
      const at = await this.#learn(path)
      const handle = await this.#inner.open(path, how, mode)
      this.#handles.add(handle)
      if (how === 'read') return this.#wrap(handle, undefined)
      let inode = this.#names.get(at)
      if (inode === undefined || how === 'exclusive') {
        inode = this.#inodes.push({ durable: Buffer.alloc(0), pending: [] }) - 1
        this.#names.set(at, inode)
      } else if (how === 'replace') {
        this.#inodes[inode]!.pending.push({ kind: 'truncate', length: 0 })
      }
      return this.#wrap(handle, inode)
    })
  }

  /** Reads a file; refused after the cut. */
  readFile(path: string): Promise<Buffer> {
    return this.#run(() => this.#inner.readFile(path))
  }

  stat(path: string): Promise<FileStat | undefined> {
    return this.#run(() => this.#inner.stat(path))
  }

  /** Lists a directory; refused after the cut. */
  readdir(path: string): Promise<string[]> {
    return this.#run(() => this.#inner.readdir(path))
  }

  /** Creates a directory, durable only once its parent is synced. */
  mkdir(path: string, mode: number): Promise<void> {
    return this.#run(() => this.#inner.mkdir(path, mode))
  }

  /** Renames, durable only once the directory is synced. */
  rename(from: string, to: string): Promise<void> {
    return this.#run(async () => {
      const [a, b] = [await this.#learn(from), await this.#learn(to)]
      await this.#inner.rename(from, to)
      const inode = this.#names.get(a)
      this.#names.delete(a)
      if (inode === undefined) this.#names.delete(b)
      else this.#names.set(b, inode)
    })
  }

  link(from: string, to: string): Promise<void> {
    return this.#run(async () => {
      const [a, b] = [await this.#learn(from), await this.#learn(to)]
      await this.#inner.link(from, to)
      const inode = this.#names.get(a)
      if (inode !== undefined) this.#names.set(b, inode)
    })
  }

  /** Removes a file, durable only once the directory is synced. */
  unlink(path: string): Promise<void> {
    return this.#run(async () => {
      const at = await this.#learn(path)
      await this.#inner.unlink(path)
      this.#names.delete(at)
    })
  }

  syncDirectory(path: string): Promise<void> {
    return this.#run(async () => {
      await this.#inner.syncDirectory(path)
      const directory = resolve(path)
      for (const at of this.#durableNames.keys()) {
        if (dirname(at) === directory) this.#durableNames.set(at, this.#names.get(at) ?? null)
      }
    })
  }

  /** Runs one operation: refused after the cut, and the cut itself when its number comes. */
  async #run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#loss) throw powerLost()
    this.#operations++
    if (this.#operations === this.#cutAt) {
      await this.powerLoss()
      throw powerLost()
    }
    const running = operation()
    this.#inFlight.add(running)
    try {
      return await running
    } finally {
      this.#inFlight.delete(running)
    }
  }

  /** Registers a path the first time it is touched: what exists now counts as durable. */
  async #learn(path: string): Promise<string> {
    const at = resolve(path)
    let learning = this.#learning.get(at)
    if (!learning) {
      learning = (async () => {
        const stat = await this.#inner.stat(at)
        if (stat?.isDirectory) return // directories are not modelled
        if (!stat) {
          this.#durableNames.set(at, null)
          return
        }
        const inode = this.#inodes.push({ durable: await this.#inner.readFile(at), pending: [] }) - 1
        this.#names.set(at, inode)
        this.#durableNames.set(at, inode)
      })()
      this.#learning.set(at, learning)
    }
    await learning
    return at
  }

  #wrap(handle: FileHandle, inode: number | undefined): FileHandle {
    const pending = (op: PendingOp) => inode !== undefined && this.#inodes[inode]!.pending.push(op)
    return {
      write: (data, position) =>
        this.#run(async () => {
          await handle.write(data, position)
          pending({ kind: 'write', position, data: Buffer.from(data) })
        }),
      truncate: (length) =>
        this.#run(async () => {
          await handle.truncate(length)
          pending({ kind: 'truncate', length })
        }),
      sync: () =>
        this.#run(async () => {
          await handle.sync()
          if (inode === undefined) return
          const file = this.#inodes[inode]!
          file.durable = file.pending.reduce(applyOp, file.durable)
          file.pending = []
        }),
      size: () => this.#run(() => handle.size()),
      close: async () => {
        // The descriptor is released even after the cut (it is the test's process), but the call fails.
        this.#handles.delete(handle)
        await handle.close()
        if (this.#loss) throw powerLost()
      },
    }
  }

  /** Rewrites every modelled file to what the device holds after the cut. */
  async #applyLoss(): Promise<PowerLossFileOutcome[]> {
    const outcomes: PowerLossFileOutcome[] = []
    const contents = new Map<number, { content: Buffer; counts: WriteCounts }>()
    for (const [at, durable] of this.#durableNames) {
      const now = this.#names.get(at)
      if (durable === null) {
        if (now !== undefined) await this.#inner.unlink(at).catch(() => {})
        outcomes.push({ path: at, outcome: now === undefined ? 'unchanged' : 'removed', writesKept: 0, writesTorn: 0, writesDropped: 0 })
        continue
      }
      let resolved = contents.get(durable)
      if (!resolved) {
        resolved = settle(this.#inodes[durable]!, this.#random)
        contents.set(durable, resolved)
      }
      const untouched = now === durable && this.#inodes[durable]!.pending.length === 0
      if (!untouched) {
        await this.#inner.unlink(at).catch(() => {})
        const handle = await this.#inner.open(at, 'exclusive')
        await handle.write(resolved.content, 0)
        await handle.close()
      }
      outcomes.push({ path: at, outcome: untouched ? 'unchanged' : 'rewritten', ...resolved.counts })
    }
    return outcomes
  }
}
