/** Reading the label of a journal write op by op (a merged write carries several names). */
import { writeNames, type WriteLabel, type WriteName } from '../src/core/durability/journal/crash-points.js'

/** The name one op of a write was made under: in a merged write, the name of its journal ('inbox.complete' for the inbox op). */
export function nameOfOp(label: WriteLabel, kind: string): WriteName {
  const names = writeNames(label)
  return names.find((name) => name.startsWith(`${kind}.`)) ?? names[0]!
}
