/**
 * File-system wrappers for the file backend's tests: the real file system underneath, with
 * operations counted (`CountingFs`) or failed on demand (`FailingFs`). Faults by wrappers, never flags.
 */
import type { FileHandle, FileStat, FileSystem, OpenHow } from '../../src/crash-safe-file/fs.js'

/** Passes every call to `inner`; subclasses hook `before`/`after`. */
class WrappingFs implements FileSystem {
  constructor(protected readonly inner: FileSystem) {}
  protected before(_operation: string, _path: string): void | Promise<void> {}
  protected afterWrite(_path: string, _bytes: number): void {}

  async open(path: string, how: OpenHow, mode?: number): Promise<FileHandle> {
    await this.before('open', path)
    const handle = await this.inner.open(path, how, mode)
    return {
      write: async (data, position) => {
        await this.before('write', path)
        await handle.write(data, position)
        this.afterWrite(path, data.byteLength)
      },
      sync: async () => {
        await this.before('sync', path)
        await handle.sync()
      },
      truncate: async (length) => {
        await this.before('truncate', path)
        await handle.truncate(length)
      },
      size: () => handle.size(),
      close: () => handle.close(),
    }
  }
  async readFile(path: string): Promise<Buffer> {
    await this.before('readFile', path)
    return this.inner.readFile(path)
  }
  stat(path: string): Promise<FileStat | undefined> {
    return this.inner.stat(path)
  }
  readdir(path: string): Promise<string[]> {
    return this.inner.readdir(path)
  }
  mkdir(path: string, mode: number): Promise<void> {
    return this.inner.mkdir(path, mode)
  }
  async rename(from: string, to: string): Promise<void> {
    await this.before('rename', to)
    await this.inner.rename(from, to)
  }
  link(from: string, to: string): Promise<void> {
    return this.inner.link(from, to)
  }
  async unlink(path: string): Promise<void> {
    await this.before('unlink', path)
    return this.inner.unlink(path)
  }
  async syncDirectory(path: string): Promise<void> {
    await this.before('syncDirectory', path)
    await this.inner.syncDirectory(path)
  }
}

/** Counts operations by name, and bytes written per file suffix (`.log`, `.tmp-…`). */
export class CountingFs extends WrappingFs {
  readonly operations = new Map<string, number>()
  bytesToLog = 0
  bytesToSnapshot = 0

  protected override before(operation: string): void {
    this.operations.set(operation, (this.operations.get(operation) ?? 0) + 1)
  }
  protected override afterWrite(path: string, bytes: number): void {
    if (path.endsWith('.log')) this.bytesToLog += bytes
    else if (path.includes('.tmp-')) this.bytesToSnapshot += bytes
  }
  count(operation: string): number {
    return this.operations.get(operation) ?? 0
  }
  reset(): void {
    this.operations.clear()
    this.bytesToLog = 0
    this.bytesToSnapshot = 0
  }
}

/** Fails chosen operations with an errno-style error, like a full disk would, or holds them until released. */
export class FailingFs extends WrappingFs {
  #rules: {
    operation: string
    pathIncludes: string
    times: number
    code?: string
    until?: Promise<void>
    after?: Promise<void>
    reached?: () => void
  }[] = []

  /** Fails the next `times` calls of `operation` on paths containing `pathIncludes` (once `after` resolves, if given). */
  failNext(operation: string, pathIncludes: string, options: { times?: number; code?: string; after?: Promise<void> } = {}): void {
    this.#rules.push({ operation, pathIncludes, times: options.times ?? 1, code: options.code ?? 'ENOSPC', after: options.after })
  }

  /**
   * Holds the next call of `operation` on a path containing `pathIncludes` until `until` resolves (then
   * it proceeds); resolves once that call is held, so a test waits for it instead of sleeping.
   */
  holdNext(operation: string, pathIncludes: string, until: Promise<void>): Promise<void> {
    return new Promise((reached) => this.#rules.push({ operation, pathIncludes, times: 1, until, reached }))
  }

  protected override async before(operation: string, path: string): Promise<void> {
    const rule = this.#rules.find((r) => r.operation === operation && path.includes(r.pathIncludes) && r.times > 0)
    if (!rule) return
    rule.times--
    rule.reached?.()
    if (rule.until) return rule.until
    await rule.after
    throw Object.assign(new Error(`${rule.code}: injected failure of ${operation} on ${path}`), { code: rule.code })
  }
}

/** A write that fails after writing part of its data, as a full disk does mid-append. */
export class TearingFs extends WrappingFs {
  #tearNext = 0
  /** The next write to a path containing `.log` writes `bytes` bytes, then fails. */
  tearNextLogWrite(bytes: number): void {
    this.#tearNext = bytes
  }
  override async open(path: string, how: OpenHow, mode?: number): Promise<FileHandle> {
    const handle = await super.open(path, how, mode)
    return {
      ...handle,
      write: async (data, position) => {
        if (this.#tearNext > 0 && path.endsWith('.log')) {
          const bytes = this.#tearNext
          this.#tearNext = 0
          await handle.write(data.subarray(0, bytes), position)
          throw Object.assign(new Error('ENOSPC: injected torn write'), { code: 'ENOSPC' })
        }
        await handle.write(data, position)
      },
    }
  }
}
