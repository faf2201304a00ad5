/**
 * A real, small file system for disk-full tests: a tmpfs of a given size mounted on a fresh temp
 * dir (root is needed: the CI container runs as root). A filler file takes the space a test wants
 * gone, and giving it back is one unlink. Without the privilege, off CI the test is skipped with a
 * loud line; under CI=true it fails.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { open, statfs, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** A mounted tmpfs. */
export interface SmallFilesystem {
  dir: string
  /** Bytes still free on it. */
  free(): Promise<number>
  /** Fills it until `leaveBytes` are left (0: completely, up to the last block). */
  fill(leaveBytes?: number): Promise<void>
  /** Gives the filler's space back. */
  release(): Promise<void>
  /** Unmounts it and removes the dir. */
  cleanup(): Promise<void>
}

/** Mounts a tmpfs of `sizeBytes`, or returns undefined (off CI, after a loud line) when it cannot. */
export async function smallFilesystem(what: string, sizeBytes: number): Promise<SmallFilesystem | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'botmesh-small-fs-'))
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { timeout: 10_000 })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    const reason = `cannot mount a tmpfs (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`
    if (process.env.CI === 'true') throw new Error(`${what}: ${reason}; CI=true, so this fails instead of skipping`)
    console.warn(`\n!!!!!!!! SKIPPED ${what}: ${reason}. Under CI=true this fails. !!!!!!!!\n`)
    return undefined
  }
  const filler = join(dir, 'filler')
  const free = async () => {
    const stats = await statfs(dir)
    return stats.bavail * stats.bsize
  }
  return {
    dir,
    free,
    async fill(leaveBytes = 0) {
      const handle = await open(filler, 'a')
      try {
        const chunk = Buffer.alloc(4096)
        while ((await free()) > leaveBytes) await handle.write(chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      } finally {
        await handle.close()
      }
    },
    async release() {
      await unlink(filler).catch(() => {})
    },
    async cleanup() {
      await run('umount', ['-l', dir]).catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
