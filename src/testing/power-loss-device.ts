/**
 * What `PowerLossFs` models of the device: a file's content as of its last fsync and the changes
 * made since, and what the device holds after a cut (each pending change dropped, kept, or kept
 * in part, by a seeded choice).
 */

/** A change to a file not yet fsynced. */
export type PendingOp = { kind: 'write'; position: number; data: Buffer } | { kind: 'truncate'; length: number }

/** One file as the device holds it. */
export interface Inode {
  /** Content as of the last fsync: what the device holds for sure. */
  durable: Buffer
  /** Changes since, in order. */
  pending: PendingOp[]
}

/** What the cut did to one file. */
export interface PowerLossFileOutcome {
  /** The file. */
  path: string
  /** What the cut left of it. */
  outcome: 'unchanged' | 'rewritten' | 'removed'
  /** Writes the cut kept (they were synced, or the device happened to keep them). */
  writesKept: number
  /** Writes the cut kept in part. */
  writesTorn: number
  /** Writes the cut lost. */
  writesDropped: number
}

/** How many of a file's pending writes the cut kept, tore and dropped. */
export type WriteCounts = Omit<PowerLossFileOutcome, 'path' | 'outcome'>

/** The device's content of a file: its durable content plus each pending change dropped, kept or torn. */
export function settle(inode: Inode, random: () => number): { content: Buffer; counts: WriteCounts } {
  const counts = { writesKept: 0, writesTorn: 0, writesDropped: 0 }
  let content = inode.durable
  for (const op of inode.pending) {
    const choice = random()
    if (choice < 1 / 3) {
      counts.writesDropped++
      continue
    }
    if (op.kind === 'write' && choice >= 2 / 3) {
      counts.writesTorn++
      content = applyOp(content, { ...op, data: op.data.subarray(0, Math.floor(random() * op.data.length)) })
      continue
    }
    counts.writesKept++
    content = applyOp(content, op)
  }
  return { content, counts }
}

/** A file's content after one change. */
export function applyOp(content: Buffer, op: PendingOp): Buffer {
  if (op.kind === 'truncate') {
    return op.length <= content.length ? content.subarray(0, op.length) : Buffer.concat([content, Buffer.alloc(op.length - content.length)])
  }
  const end = op.position + op.data.length
  const next = Buffer.alloc(Math.max(content.length, end))
  content.copy(next)
  op.data.copy(next, op.position)
  return next
}

/** The error every call gets once the power is cut. */
export function powerLost(): Error {
  return Object.assign(new Error('simulated power loss: the machine is off'), { code: 'EIO' })
}
