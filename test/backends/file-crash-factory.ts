/**
 * The crash matrix's factory for FileDurability: each generation of the bot opens the journal over
 * a file system that can die with it. At the crash the factory makes the process die for real, as
 * far as the files can tell: in `kill` mode every operation already handed to the OS completes and
 * nothing after it reaches the disk (a SIGKILL); in `power-loss` mode, in addition, every write not
 * yet fsynced is dropped, kept or torn (`PowerLossFs`). The dead instance then lets go of its
 * in-process lock registration through `close()`, whose every file operation fails, so it writes
 * nothing a dead process would not have. The journal is reopened read-only with the real file
 * system and checked (old or new state, never empty or mixed: file-crash-recorder.ts), and the next
 * generation opens it for writing, as the next process would, taking over the dead pid's lock.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  FileDurability,
  nodeFileSystem,
  type FileDurabilityOptions,
  type FileHandle,
  type FileStat,
  type FileSystem,
  type OpenHow,
} from '../../src/backends/file/index.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { CrashBackendFactory } from '../../src/testing/crash-matrix/index.js'
import { PowerLossFs } from '../../src/testing/power-loss-fs.js'
import { checkPrefix, readRecords, RecordingBackend, type Stored } from './file-crash-recorder.js'

/** How the process dies at the crash. */
export type FileCut = 'kill' | 'power-loss'

/** What the crashes did, over every case of a factory. */
export interface FileCrashFigures {
  /** Crashes after which the journal was reopened and checked. */
  reopened: number
  /** Reopens refused (must stay 0: fsync is on, and a kill loses nothing written). */
  refused: number
  /** Writes acknowledged before a crash, every one found after it. */
  acknowledged: number
  inFlightKept: number
  inFlightDropped: number
  /** Power loss only: writes not yet fsynced at the cut, and what the cut did to them. */
  unsyncedKept: number
  unsyncedTorn: number
  unsyncedDropped: number
  /** Stale locks of the dead instance taken over by the next open. */
  locksTakenOver: number
}

/** Lets a crash fail in a readable way when the dead instance does not let go. */
const RELEASE_TIMEOUT_MS = 10_000

interface CaseFiles {
  dir: string
  path: string
  /** Every instance opened for this case (the dead ones were released already). */
  opened: FileDurability[]
  durability: FileDurability
  fs: KillableFs | PowerLossFs
  /** The seed of a PowerLossFs (its drop / keep / tear choices). */
  fsSeed: number
  /** What the journal held when this generation opened it (after the last crash). */
  base: Map<string, Stored>
  known: Set<string>
}

/** A crash-matrix factory of FileDurability journals that die at each crash as `cut` says. */
export function fileCrashFactory(
  options: FileDurabilityOptions,
  cut: FileCut,
): { factory: CrashBackendFactory; figures: FileCrashFigures } {
  const figures: FileCrashFigures = {
    reopened: 0,
    refused: 0,
    acknowledged: 0,
    inFlightKept: 0,
    inFlightDropped: 0,
    unsyncedKept: 0,
    unsyncedTorn: 0,
    unsyncedDropped: 0,
    locksTakenOver: 0,
  }
  const cases = new Map<DurabilityBackend, CaseFiles>()
  let seed = 0

  const open = async (
    files: Omit<CaseFiles, 'durability' | 'fs' | 'fsSeed' | 'opened'> & { opened?: FileDurability[] },
  ): Promise<RecordingBackend> => {
    const fsSeed = ++seed
    // Under a simulated power loss the model alone decides what a sync made durable: the device's
    // own flush would change no outcome, only add its latency to every commit.
    const fs = cut === 'kill' ? new KillableFs(nodeFileSystem) : new PowerLossFs(withoutDeviceFlush(nodeFileSystem), { seed: fsSeed })
    const durability = await FileDurability.open(files.path, { ...options, fs })
    const recorder = new RecordingBackend(durability)
    cases.set(recorder, { ...files, opened: [...(files.opened ?? []), durability], durability, fs, fsSeed })
    return recorder
  }

  const factory: CrashBackendFactory = {
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'botmesh-file-crash-'))
      return open({ dir, path: join(dir, 'durable.json'), base: new Map(), known: new Set() })
    },

    async restart(crashed) {
      const files = cases.get(crashed)
      if (!files) throw new Error('restart() of a backend this factory did not make')
      const recorder = crashed as RecordingBackend
      // Which writes were acknowledged is read before the cut: only those must survive it.
      const statuses = recorder.statuses()
      if (files.fs instanceof PowerLossFs) {
        for (const outcome of await files.fs.powerLoss()) {
          figures.unsyncedKept += outcome.writesKept
          figures.unsyncedTorn += outcome.writesTorn
          figures.unsyncedDropped += outcome.writesDropped
        }
      } else {
        await files.fs.kill()
      }
      await releaseDead(files.durability)

      const lockLeft = await nodeFileSystem.stat(`${files.path}.lock`)
      let reader: FileDurability
      try {
        reader = await FileDurability.open(files.path, { ...options, readOnly: true })
      } catch (error) {
        figures.refused++
        throw new Error(`after the ${cut}, reopening ${files.path} was refused: ${String(error)}`, { cause: error })
      }
      try {
        for (const key of recorder.keys()) files.known.add(key)
        const observed = await readRecords(reader, files.known)
        const verdict = checkPrefix(files.base, recorder.writes, statuses, observed)
        if (recorder.purged > 0) verdict.problems.push(`${recorder.purged} record(s) purged: the model cannot check this crash`)
        figures.reopened++
        figures.acknowledged += verdict.acknowledged
        figures.inFlightKept += verdict.inFlightKept
        figures.inFlightDropped += verdict.inFlightDropped
        if (verdict.problems.length > 0) throw new Error(`after the ${cut} (fs seed ${files.fsSeed}): ${verdict.problems.join('; ')}`)
        const next = await open({ ...files, base: observed.records })
        if (lockLeft) figures.locksTakenOver++
        return next
      } finally {
        await reader.close()
      }
    },

    async cleanup(backend) {
      const files = cases.get(backend)
      if (!files) return
      for (const [recorder, other] of cases) if (other.dir === files.dir) cases.delete(recorder)
      await Promise.all(files.opened.map((durability) => durability.close().catch(() => {})))
      await rm(files.dir, { recursive: true, force: true })
    },
  }
  return { factory, figures }
}

/**
 * The dead instance lets go of its in-process registration (a second open in this process is
 * refused until then, I14). Its file system is dead, so `close()` fails at its first file
 * operation and changes nothing on disk; the lock file stays, naming this pid, as a killed process
 * leaves it, and the next open takes it over.
 */
async function releaseDead(durability: FileDurability): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the dead instance of ${durability.path} did not let go within ${RELEASE_TIMEOUT_MS} ms`)),
      RELEASE_TIMEOUT_MS,
    )
  })
  try {
    await Promise.race([durability.close().catch(() => {}), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A file system whose process can be killed: `kill()` waits for the operations already handed to
 * the OS (they complete, as a write(2) in progress does when its process is killed), and every later
 * operation fails without touching the disk. Nothing is dropped: a SIGKILL leaves the OS cache alone.
 */
export class KillableFs implements FileSystem {
  readonly #inner: FileSystem
  readonly #inFlight = new Set<Promise<unknown>>()
  #dead: Promise<void> | undefined

  constructor(inner: FileSystem) {
    this.#inner = inner
  }

  /** Kills the process as far as the files can tell. Idempotent. */
  kill(): Promise<void> {
    this.#dead ??= Promise.allSettled([...this.#inFlight]).then(() => {})
    return this.#dead
  }

  open(path: string, how: OpenHow, mode?: number): Promise<FileHandle> {
    return this.#run(async () => this.#wrap(await this.#inner.open(path, how, mode)))
  }
  readFile(path: string): Promise<Buffer> {
    return this.#run(() => this.#inner.readFile(path))
  }
  stat(path: string): Promise<FileStat | undefined> {
    return this.#run(() => this.#inner.stat(path))
  }
  readdir(path: string): Promise<string[]> {
    return this.#run(() => this.#inner.readdir(path))
  }
  mkdir(path: string, mode: number): Promise<void> {
    return this.#run(() => this.#inner.mkdir(path, mode))
  }
  rename(from: string, to: string): Promise<void> {
    return this.#run(() => this.#inner.rename(from, to))
  }
  link(from: string, to: string): Promise<void> {
    return this.#run(() => this.#inner.link(from, to))
  }
  unlink(path: string): Promise<void> {
    return this.#run(() => this.#inner.unlink(path))
  }
  syncDirectory(path: string): Promise<void> {
    return this.#run(() => this.#inner.syncDirectory(path))
  }

  async #run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#dead) throw killed()
    const running = operation()
    this.#inFlight.add(running)
    try {
      return await running
    } finally {
      this.#inFlight.delete(running)
    }
  }

  #wrap(handle: FileHandle): FileHandle {
    return {
      write: (data, position) => this.#run(() => handle.write(data, position)),
      sync: () => this.#run(() => handle.sync()),
      truncate: (length) => this.#run(() => handle.truncate(length)),
      size: () => this.#run(() => handle.size()),
      close: async () => {
        // The descriptor is this test process's: release it (closing changes nothing on disk).
        await handle.close()
        if (this.#dead) throw killed()
      },
    }
  }
}

/**
 * The real file system, except that fsync returns at once. Only under `PowerLossFs`, whose model
 * of the device is what a power cut consults: every read, write, rename and unlink still goes to
 * the real files.
 */
function withoutDeviceFlush(inner: FileSystem): FileSystem {
  return {
    ...inner,
    async open(path, how, mode) {
      const handle = await inner.open(path, how, mode)
      return { ...handle, sync: async () => {} }
    },
    syncDirectory: async () => {},
  }
}

function killed(): Error {
  return Object.assign(new Error('simulated SIGKILL: the process is gone'), { code: 'EIO' })
}
