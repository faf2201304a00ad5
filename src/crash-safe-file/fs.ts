/**
 * The `FileSystem` contract (src/core/platform/file-system.ts) over node:fs: what the file backends use in
 * production, and nothing more (I1).
 */
import { constants } from 'node:fs'
import * as fsp from 'node:fs/promises'
import type { FileHandle, FileSystem, OpenHow } from '../core/backend-internals.js'

export type { FileHandle, FileStat, FileSystem, OpenHow } from '../core/backend-internals.js'

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
