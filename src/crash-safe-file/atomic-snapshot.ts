/**
 * Whole-file replacement where the rename is the commit point (I2), and the strict read of such a
 * file (I9). Knows nothing of what the bytes mean: FileDurability's snapshot and the events
 * journals both write through here.
 */
import { basename, dirname, join } from 'node:path'
import { JournalCorruptError } from '../core/errors/errors.js'
import { errorCode, FILE_MODE, type FileSystem } from './fs.js'

/** Options of `writeFileAtomic`. */
export interface AtomicWriteOptions {
  /** Fsync the temp file before the rename and the directory after it. */
  fsync: boolean
  /** Permission bits of the new file. @default 0o600 */
  mode?: number
}

let tempCounter = 0

/** The name prefix of `path`'s temp files (`<path>.tmp-`). */
export function tempPrefix(path: string): string {
  return `${basename(path)}.tmp-`
}

/**
 * Replaces `path` with `content`, one write call a chunk, as the caller framed it (a snapshot
 * comes in chunks of SNAPSHOT_CHUNK_BYTES): temp file in the same directory, fsync, rename, fsync
 * of the directory (I2). Readers see the old file or the new one, never a mix. On failure the temp is
 * removed (best effort) and the old file is untouched.
 */
export async function writeFileAtomic(
  fs: FileSystem,
  path: string,
  content: readonly Uint8Array[],
  options: AtomicWriteOptions,
): Promise<void> {
  const temp = join(dirname(path), `${tempPrefix(path)}${process.pid}-${++tempCounter}`)
  try {
    const handle = await fs.open(temp, 'replace', options.mode ?? FILE_MODE)
    try {
      let position = 0
      for (const chunk of content) {
        await handle.write(chunk, position)
        position += chunk.byteLength
      }
      if (options.fsync) await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(temp, path)
  } catch (error) {
    await fs.unlink(temp).catch(() => {})
    throw error
  }
  // After the rename the new content is the file; the directory fsync makes the name durable (I2).
  if (options.fsync) {
    try {
      await fs.syncDirectory(dirname(path))
    } catch (error) {
      throw new AfterRenameError(path, error)
    }
  }
}

/**
 * The new content replaced the file, but the directory fsync after the rename failed: the file
 * holds the new content and whether it survives a power loss is unknown. It cannot be undone.
 */
export class AfterRenameError extends Error {
  constructor(path: string, cause: unknown) {
    super(`${path} was replaced, but fsync of its directory failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'AfterRenameError'
  }
}

/**
 * Reads a journal file whole. Resolves undefined when nothing exists at `path` (a new journal,
 * I9); refuses a directory, and a 0-byte file unless `allowEmpty` (a log may be empty, a snapshot
 * never is), with a `JournalCorruptError` naming the file.
 */
export async function readJournalFile(fs: FileSystem, path: string, options: { allowEmpty: boolean }): Promise<Buffer | undefined> {
  const stat = await fs.stat(path)
  if (!stat) return undefined
  if (!stat.isFile)
    throw new JournalCorruptError(path, stat.isDirectory ? 'is a directory, expected a journal file' : 'is not a regular file')
  let content: Buffer
  try {
    content = await fs.readFile(path)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
  if (content.length === 0 && !options.allowEmpty) {
    throw new JournalCorruptError(path, 'is empty (0 bytes); a journal file always holds at least its header, so it was cut short')
  }
  return content
}

/** Removes temp files of `path` left by a writer that crashed (I17). Only call it holding the lock. */
export async function removeStrayTemps(fs: FileSystem, path: string): Promise<string[]> {
  const directory = dirname(path)
  const prefix = tempPrefix(path)
  const names = await fs.readdir(directory).catch(() => [] as string[])
  const removed: string[] = []
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    await fs.unlink(join(directory, name)).catch(() => {})
    removed.push(name)
  }
  return removed
}
