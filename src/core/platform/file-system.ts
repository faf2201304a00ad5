/**
 * The file-system contract of the file backends: every read, write, fsync, rename and unlink goes
 * through a `FileSystem`, so a test can wrap the real one (the power-loss wrapper of
 * `botmesh/core/testing`) without a flag in production code. Part of the SPI: the file backends
 * implement it over node:fs, the testing kit wraps it.
 */
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
  /** Closes the handle. */
  close(): Promise<void>
}

/** What `stat` tells. */
export interface FileStat {
  /** Whether it is a regular file. */
  isFile: boolean
  /** Whether it is a directory. */
  isDirectory: boolean
  /** Its size in bytes. */
  size: number
  /** Its permission bits. */
  mode: number
  /** Last modification (ms since the epoch, sub-ms precision where the platform has it); absent if a wrapper drops it. */
  mtimeMs?: number
  /** The inode number; absent if a wrapper drops it. With mtimeMs and size it tells one version of a file from another. */
  ino?: number
}

/** The operations the file backends need, over paths. Errors carry Node's `code` (ENOENT, EEXIST, …). */
export interface FileSystem {
  /** Opens a file for reading, appending or writing. */
  open(path: string, how: OpenHow, mode?: number): Promise<FileHandle>
  /** The whole file. */
  readFile(path: string): Promise<Buffer>
  /** Undefined when nothing exists at the path. */
  stat(path: string): Promise<FileStat | undefined>
  /** The names in a directory. */
  readdir(path: string): Promise<string[]>
  /** Creates a directory and its parents with `mode`. */
  mkdir(path: string, mode: number): Promise<void>
  /** Renames atomically, replacing `to`. */
  rename(from: string, to: string): Promise<void>
  /** A second name for a file; fails with EEXIST if `to` exists (atomic create with content). */
  link(from: string, to: string): Promise<void>
  /** Removes a file. */
  unlink(path: string): Promise<void>
  /** Fsyncs a directory, so the names created, renamed or removed in it are durable. */
  syncDirectory(path: string): Promise<void>
}
