/**
 * Test kit of the events journals: temp dirs, a file system whose process can be "killed", and the
 * crash-matrix factory of eventsDurability over each kind of journal.
 *
 * At a crash the dead generation's file system is killed: operations already handed to the OS
 * complete, every later one fails without touching the disk (as after a SIGKILL). Its lock file and
 * any mutex it held stay, naming this pid; the next generation opens the file again as the next
 * process would, taking over the dead holder's lock or breaking its mutex.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileEventJournal, SharedFileEventJournal, type LeasedEventJournal } from '../../src/events/index.js'
import { eventsDurability, type EventsDurability } from '../../src/backends/events/durability.js'
import { nodeFileSystem, type FileHandle, type FileStat, type FileSystem, type OpenHow } from '../../src/crash-safe-file/fs.js'
import type { DurableKv } from '../../src/core/durability/journal/kv.js'
import type { DurabilityBackend } from '../../src/core/durability/journal/backend.js'
import type { CrashBackendFactory } from '../../src/testing/crash-matrix/index.js'

/** A fresh temp dir, removed by `removeDirs()`. */
const dirs: string[] = []
export function tempDir(prefix = 'botmesh-events-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}
export function removeDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A file system that dies: `kill()` lets the operations in flight finish, and every later one fails. */
export class KillableFs implements FileSystem {
  readonly #inner: FileSystem
  readonly #inFlight = new Set<Promise<unknown>>()
  #dead: Promise<void> | undefined

  constructor(inner: FileSystem = nodeFileSystem) {
    this.#inner = inner
  }

  kill(): Promise<void> {
    this.#dead ??= Promise.allSettled([...this.#inFlight]).then(() => {})
    return this.#dead
  }

  open = (path: string, how: OpenHow, mode?: number) => this.#run(async () => this.#wrap(await this.#inner.open(path, how, mode)))
  readFile = (path: string) => this.#run(() => this.#inner.readFile(path))
  stat = (path: string): Promise<FileStat | undefined> => this.#run(() => this.#inner.stat(path))
  readdir = (path: string) => this.#run(() => this.#inner.readdir(path))
  mkdir = (path: string, mode: number) => this.#run(() => this.#inner.mkdir(path, mode))
  rename = (from: string, to: string) => this.#run(() => this.#inner.rename(from, to))
  link = (from: string, to: string) => this.#run(() => this.#inner.link(from, to))
  unlink = (path: string) => this.#run(() => this.#inner.unlink(path))
  syncDirectory = (path: string) => this.#run(() => this.#inner.syncDirectory(path))

  #wrap(handle: FileHandle): FileHandle {
    return {
      write: (data, position) => this.#run(() => handle.write(data, position)),
      sync: () => this.#run(() => handle.sync()),
      truncate: (length) => this.#run(() => handle.truncate(length)),
      size: () => this.#run(() => handle.size()),
      // Closing a descriptor is what the kernel does for a killed process anyway.
      close: () => handle.close(),
    }
  }

  #run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#dead) return Promise.reject(Object.assign(new Error('the process was killed'), { code: 'EKILLED' }))
    const running = operation()
    this.#inFlight.add(running)
    void running.then(
      () => this.#inFlight.delete(running),
      () => this.#inFlight.delete(running),
    )
    return running
  }
}

/** Which journal a factory opens, on a file system it gets. */
export type JournalOpener = (path: string, fs: FileSystem) => Promise<LeasedEventJournal>

export const openLocked: JournalOpener = (path, fs) => FileEventJournal.open(path, { lock: true, fs })
export const openShared: JournalOpener = (path, fs) => SharedFileEventJournal.open(path, { fs })
export const openSharedAppendLog: JournalOpener = (path, fs) =>
  SharedFileEventJournal.open(path, { fs, appendLog: { compactEvery: 16, fsync: false } })

interface Opened {
  path: string
  fs: KillableFs
  /** The outbox store of this generation (database-backed), if any. */
  outbox?: DurableKv
}

/**
 * The crash matrix's factory of eventsDurability over `open`'s journal, in a temp dir per case;
 * `outbox` makes the database-backed outbox of a generation (the same data in every generation).
 */
export function eventsCrashFactory(
  open: JournalOpener,
  outbox?: { create(): { kv: DurableKv; reopen(): DurableKv }; cleanup(kv: DurableKv): Promise<void> },
): CrashBackendFactory {
  const opened = new Map<DurabilityBackend, Opened & { reopenOutbox?: () => DurableKv }>()
  const make = async (path: string, store?: { kv: DurableKv; reopen(): DurableKv }) => {
    const fs = new KillableFs()
    const backend = eventsDurability({ journal: await open(path, fs), outbox: store?.kv })
    opened.set(backend, { path, fs, outbox: store?.kv, reopenOutbox: store?.reopen })
    return backend
  }
  return {
    create: () => make(join(tempDir('botmesh-events-crash-'), 'events.json'), outbox?.create()),
    async restart(crashed) {
      const dead = opened.get(crashed)!
      await dead.fs.kill()
      // A dead process lets go of nothing but its in-process registration: close() fails at its
      // first file operation, and the lock file stays behind naming this pid.
      await (crashed as EventsDurability).journalOfEvents.close().catch(() => {})
      await dead.outbox?.stop().catch(() => {})
      const next = dead.reopenOutbox && { kv: dead.reopenOutbox(), reopen: dead.reopenOutbox }
      return make(dead.path, next)
    },
    async cleanup(backend) {
      const entry = opened.get(backend)
      await (backend as EventsDurability).journalOfEvents.close().catch(() => {})
      if (entry?.outbox && outbox) await outbox.cleanup(entry.outbox)
    },
  }
}
