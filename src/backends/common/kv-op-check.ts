/**
 * The one check every backend that stores ops out of process makes before a write: an op the
 * memory reference model would take but another backend could not read back the same is refused
 * here, with the same words in every backend.
 */
import type { KvOp } from '../../core/spi.js'

/** Throws a RangeError naming the field of `op` that no backend could store. */
export function checkKvOp(op: KvOp): void {
  if (typeof op.collection !== 'string' || typeof op.key !== 'string') {
    throw new RangeError(`an op needs a string collection and key, got ${String(op.collection)}/${String(op.key)}`)
  }
  if (!Number.isSafeInteger(op.expectVersion) || op.expectVersion < 0) {
    throw new RangeError(`expectVersion of "${op.key}" must be a whole number >= 0, got ${op.expectVersion}`)
  }
  if (op.op === 'delete') return
  if (typeof op.state !== 'string') throw new RangeError(`state of "${op.key}" must be a string, got ${String(op.state)}`)
  if (!Number.isFinite(op.stateTime)) throw new RangeError(`stateTime of "${op.key}" must be a finite number, got ${op.stateTime}`)
  if (op.due !== null && !Number.isFinite(op.due)) throw new RangeError(`due of "${op.key}" must be a finite number or null, got ${op.due}`)
  if (op.value === undefined) throw new RangeError(`the value of "${op.key}" is undefined`)
}
