/**
 * The host clock's anchors in a file beside a journal, `<journal>.clock`: JSON `{ "anchors":
 * { "<boot id>": <anchor ms>, … } }`, newest last. The caller holds the journal's cross-process
 * mutex, so reading, adding the boot's anchor and replacing the file (temp, rename: I2) is one
 * step for every process; a reader never sees half a file.
 */
import { writeFileAtomic } from './atomic-snapshot.js'
import { errorCode, type FileSystem } from './fs.js'
import { HOST_CLOCK_LIMITS, type ClockAnchor, type ClockAnchorStore } from './host-clock.js'

/** Where the anchors of the journal at `path` are kept. */
export function clockPathOf(path: string): string {
  return `${path}.clock`
}

/** The anchor store beside the journal at `path`; call `anchor` only while holding its mutex. */
export function fileAnchorStore(fs: FileSystem, path: string): ClockAnchorStore {
  const clockPath = clockPathOf(path)
  return {
    async anchor(proposed: ClockAnchor): Promise<ClockAnchor> {
      const anchors = await readAnchors(fs, clockPath)
      const found = anchors.get(proposed.bootId)
      if (found !== undefined) return { bootId: proposed.bootId, anchorMs: found }
      anchors.set(proposed.bootId, proposed.anchorMs)
      const kept = [...anchors].slice(-HOST_CLOCK_LIMITS.anchorsKept)
      const text = `${JSON.stringify({ anchors: Object.fromEntries(kept) })}\n`
      // Synced: a process of this boot that read the anchor must find the same one after a power loss.
      await writeFileAtomic(fs, clockPath, [Buffer.from(text)], { fsync: true })
      return proposed
    },
  }
}

/** The anchors in the file, in the order they were added; none when the file is missing or unreadable. */
async function readAnchors(fs: FileSystem, clockPath: string): Promise<Map<string, number>> {
  let text: string
  try {
    text = (await fs.readFile(clockPath)).toString('utf8')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return new Map()
    throw error
  }
  try {
    const anchors = (JSON.parse(text) as { anchors?: unknown }).anchors
    if (typeof anchors !== 'object' || anchors === null) return new Map()
    return new Map(Object.entries(anchors).filter((entry): entry is [string, number] => Number.isFinite(entry[1])))
  } catch {
    // A file damaged outside botmesh: the boot anchors afresh, as on a new boot.
    return new Map()
  }
}
