/**
 * The file-system operations the file backends use, and nothing more (I1). Every read, write,
 * fsync, rename and unlink goes through a `FileSystem`, so a test can wrap the real one (the
 * power-loss wrapper of `botmesh/core/testing`) without a single flag in production code.
 */
import { constants } from 'node:fs'
import * as fsp from 'node:fs/promises'

/** How a file is opened. Writes are always positional, so no mode appends implicitly. */
export type OpenHow =
  /** Read only; the file must exist. */
  | 'read'
  /** Read and write, created if missing, never truncated (the append log). */
  | 'update'
  /** Write only, created or truncated to 0 bytes (a temp file). */
  | 'replace'
  /** Write only, created; fails with EEXIST if the file exists (a lock temp). */
  | 'exclusive'

/** An open file. */
export interface FileHandle {
  /** Writes all of `data` at `position`. */
  write(data: Uint8Array, position: number): Promise<void>
  /** Flushes the file's data and size to the device (fsync). */
  sync(): Promise<void>
  /** Cuts or extends the file to `length` bytes. */
  truncate(length: number): Promise<void>
  /** The file's size in bytes. */
  size(): Promise<number>
  close(): Promise<void>
}

/** What `stat` tells. */
export interface FileStat {
  isFile: boolean
  isDirectory: boolean
  size: number
  mode: number
  /** Last modification (ms since the epoch, sub-ms precision where the platform has it); absent if a wrapper drops it. */
  mtimeMs?: number
  /** The inode number; absent if a wrapper drops it. With mtimeMs and size it tells one version of a file from another. */
  ino?: number
}

/** The operations the file backends need, over paths. Errors carry Node's `code` (ENOENT, EEXIST, …). */
export interface FileSystem {
  open(path: string, how: OpenHow, mode?: number): Promise<FileHandle>
  readFile(path: string): Promise<Buffer>
  /** Undefined when nothing exists at the path. */
  stat(path: string): Promise<FileStat | undefined>
  readdir(path: string): Promise<string[]>
  mkdir(path: string, mode: number): Promise<void>
  rename(from: string, to: string): Promise<void>
  /** A second name for a file; fails with EEXIST if `to` exists (atomic create with content). */
  link(from: string, to: string): Promise<void>
  unlink(path: string): Promise<void>
  /** Fsyncs a directory, so the names created, renamed or removed in it are durable. */
  syncDirectory(path: string): Promise<void>
}

const FLAGS: Record<OpenHow, number> = {
  read: constants.O_RDONLY,
  update: constants.O_RDWR | constants.O_CREAT,
  replace: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
  exclusive: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
}

/** Files the backends create are readable by their owner only (I16). */
export const FILE_MODE = 0o600
/** Directories the backends create are reachable by their owner only (I16). */
export const DIRECTORY_MODE = 0o700

/** The real file system (node:fs/promises). */
export const nodeFileSystem: FileSystem = {
  async open(path, how, mode = FILE_MODE) {
    return wrapHandle(await fsp.open(path, FLAGS[how], mode))
  },
  readFile: (path) => fsp.readFile(path),
  async stat(path) {
    try {
      const stat = await fsp.stat(path)
      return {
        isFile: stat.isFile(),
        isDirectory: stat.isDirectory(),
        size: stat.size,
        mode: stat.mode & 0o777,
        mtimeMs: stat.mtimeMs,
        ino: stat.ino,
      }
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined
      throw error
    }
  },
  readdir: (path) => fsp.readdir(path),
  async mkdir(path, mode) {
    await fsp.mkdir(path, { recursive: true, mode })
  },
  rename: (from, to) => fsp.rename(from, to),
  link: (from, to) => fsp.link(from, to),
  unlink: (path) => fsp.unlink(path),
  async syncDirectory(path) {
    const handle = await fsp.open(path, constants.O_RDONLY)
    try {
      await handle.sync()
    } catch (error) {
      // Some platforms (Windows) cannot fsync a directory; their renames are durable without it.
      if (!['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].includes(errorCode(error) ?? '')) throw error
    } finally {
      await handle.close()
    }
  },
}

function wrapHandle(handle: fsp.FileHandle): FileHandle {
  return {
    async write(data, position) {
      let written = 0
      // write() may write fewer bytes than asked (signals, pipes); loop until all are down.
      while (written < data.byteLength) {
        const { bytesWritten } = await handle.write(data, written, data.byteLength - written, position + written)
        written += bytesWritten
      }
    },
    sync: () => handle.sync(),
    truncate: (length) => handle.truncate(length),
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  }
}

/** Node's error code (`ENOENT`, …) of an error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** Removes a file, taking one that is already gone as removed. */
export async function unlinkIfThere(fs: FileSystem, path: string): Promise<void> {
  try {
    await fs.unlink(path)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  }
}
