/**
 * The file journal's raw ceiling (`npm run bench`, measure.ts): one append + fsync per write, one
 * writer, no group commit, beside the journal. The events journal writes the same way and shares it.
 */
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { ceilingFigures, inCeilingDir, timed, type CeilingFigures } from './timed.js'

/** One append + fsync per write, one writer (what a file journal without group commit does). */
export function appendFsync(parent: string, operations: number, body: string): Promise<CeilingFigures> {
  return inCeilingDir(parent, async (dir) => {
    const handle = await open(join(dir, 'ceiling.log'), 'a', 0o600)
    try {
      const seconds = await timed(operations, 1, async (n) => {
        await handle.write(`{"n":${n},"body":"${body}"}\n`)
        await handle.sync()
      })
      return ceilingFigures('append + fsync per write', 'write', operations, 1, seconds)
    } finally {
      await handle.close()
    }
  })
}
