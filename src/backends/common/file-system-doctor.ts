/**
 * `botmesh doctor` for a journal kept in files (file, SQLite, events): the directory it lives in,
 * the file system under it (some keep nothing across a power loss however often botmesh fsyncs),
 * whether a write and its fsync work there, and the free space. Nothing of the journal is opened
 * or changed: the fsync check writes a file of its own beside it and removes it.
 */
import { randomBytes } from 'node:crypto'
import { statSync } from 'node:fs'
import { open, rm, statfs } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { doctorCheck, guarded, type DoctorCheck, type DoctorLimits } from './doctor.js'

/** File systems by `statfs` type (Linux's magic numbers), and what each means for an fsynced write. */
const FILE_SYSTEMS: Record<number, { name: string; risk?: string }> = {
  0xef53: { name: 'ext4 (ext2/ext3)' },
  0x58465342: { name: 'xfs' },
  0x9123683e: { name: 'btrfs' },
  0x2fc12fc1: { name: 'zfs' },
  0xf2f52010: { name: 'f2fs' },
  0x5346544e: { name: 'ntfs' },
  0x01021994: { name: 'tmpfs', risk: 'held in memory: fsync returns at once and a reboot or power loss loses the whole journal' },
  0x858458f6: { name: 'ramfs', risk: 'held in memory: fsync returns at once and a reboot or power loss loses the whole journal' },
  0x794c7630: {
    name: 'overlay',
    risk: "a container's writable layer: it goes with the container, and whether an fsync reaches a disk depends on the layer under it",
  },
  0x6969: { name: 'nfs', risk: 'a network file system: fsync and file locks are only as good as the server and the mount options' },
  0xff534d42: { name: 'cifs', risk: 'a network file system: fsync and file locks are only as good as the server and the mount options' },
  0xfe534d42: { name: 'smb2', risk: 'a network file system: fsync and file locks are only as good as the server and the mount options' },
  0x65735546: { name: 'fuse', risk: 'a FUSE file system: what fsync does is up to the program behind it' },
  0x01021997: { name: '9p', risk: "a host folder shared into a VM: what fsync does is up to the host's side" },
}

/** What to do about a file system that does not keep fsynced writes. */
const MOVE_FIX = 'Keep the journal on a local disk (ext4, xfs, btrfs, zfs); in a container, on a volume mounted from one'

/** The checks of the directory `path` (a journal file) lives in. */
export async function fileSystemChecks(
  path: string,
  limits: Pick<DoctorLimits, 'diskFreeBytesMin' | 'fsyncProbeBytes'>,
): Promise<DoctorCheck[]> {
  const { directory, existing } = journalDirectory(path)
  return [
    directoryCheck(directory, existing),
    ...(await guarded('file system', () => fileSystemCheck(existing))),
    ...(await guarded('fsync', () => fsyncCheck(existing, limits.fsyncProbeBytes))),
    ...(await guarded('free space', () => freeSpaceCheck(existing, limits.diskFreeBytesMin))),
  ]
}

function directoryCheck(directory: string, existing: string): DoctorCheck {
  if (existing === directory) return doctorCheck('directory', 'ok', directory)
  return doctorCheck(
    'directory',
    'ok',
    `${directory} does not exist yet (a bot's first start makes it); the checks below ran in ${existing}, the nearest folder that exists`,
  )
}

/** The statfs type as a line: a file system that keeps nothing across a power loss is a warn, named. */
export async function fileSystemCheck(directory: string): Promise<DoctorCheck> {
  const { type } = await statfs(directory)
  const known = FILE_SYSTEMS[type]
  if (!known)
    return doctorCheck(
      'file system',
      'warn',
      `type 0x${type.toString(16)}, which botmesh does not know: it could not tell whether an fsynced write survives a power loss`,
      MOVE_FIX,
    )
  if (known.risk) return doctorCheck('file system', 'warn', `${known.name}: ${known.risk}`, MOVE_FIX)
  return doctorCheck('file system', 'ok', `${known.name}: an fsynced write survives a power loss (on a disk that honours flushes)`)
}

/**
 * Writes a file of its own in `directory`, fsyncs it and the directory, and removes it: what every
 * journal write does. A failure is a fail: a bot could not make a write durable there either.
 */
export async function fsyncCheck(directory: string, probeBytes: number): Promise<DoctorCheck> {
  const probe = join(directory, `.botmesh-doctor-${process.pid}-${randomBytes(4).toString('hex')}`)
  const started = performance.now()
  try {
    const file = await open(probe, 'wx', 0o600)
    try {
      await file.write(Buffer.alloc(probeBytes, 0x62))
      await file.sync()
    } finally {
      await file.close()
    }
    await syncDirectory(directory)
  } catch (error) {
    const code = (error as { code?: string }).code ?? ''
    return doctorCheck(
      'fsync',
      'fail',
      `a write and its fsync in ${directory} failed (${code || (error as Error).message}): a bot could not make a journal write durable there`,
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? "Give the bot's user write access to the folder (or choose a writable one)"
        : 'Choose a folder on a local disk',
    )
  } finally {
    await rm(probe, { force: true }).catch(() => {})
  }
  const ms = performance.now() - started
  return doctorCheck('fsync', 'ok', `a ${probeBytes}-byte write, its fsync and the folder's fsync worked (${ms.toFixed(1)} ms)`)
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Free space for the bot's user (`bavail`): below the limit, a warn. */
export async function freeSpaceCheck(directory: string, freeBytesMin: number): Promise<DoctorCheck> {
  const { bavail, bsize, blocks } = await statfs(directory)
  const free = bavail * bsize
  const found = `${describeBytes(free)} free of ${describeBytes(blocks * bsize)}`
  if (free >= freeBytesMin) return doctorCheck('free space', 'ok', found)
  return doctorCheck(
    'free space',
    'warn',
    `${found}, under ${describeBytes(freeBytesMin)}: a full disk refuses every journal write, so the bot stops taking messages`,
    'Free space on this disk, or move the journal to a larger one; `botmesh purge` and `botmesh compact` shrink a journal',
  )
}

/** `12.3 GiB`, `512 MiB`. */
export function describeBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

/** The folder a journal file `path` lives in, and the nearest folder of it that exists (itself, or an ancestor a bot's first start creates the rest under). */
export function journalDirectory(path: string): { directory: string; existing: string } {
  const directory = dirname(resolve(path))
  return { directory, existing: nearestExisting(directory) }
}

function nearestExisting(directory: string): string {
  let current = directory
  for (;;) {
    try {
      if (statSync(current).isDirectory()) return current
    } catch {
      // Missing: look one level up.
    }
    const parent = dirname(current)
    if (parent === current) return current
    current = parent
  }
}
