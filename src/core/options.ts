/**
 * Options objects are checked against the names they take: a misspelt or misplaced option would
 * otherwise be ignored, and the bot would run without what its operator asked for.
 */
import { ConfigError } from './errors.js'

/**
 * Throws a ConfigError naming the first key of `given` that is not in `known` (`where` is the
 * option's path, e.g. 'durability.outbox'). `misplaced` maps a key that belongs elsewhere, or that
 * this version does not support, to the sentence that says so.
 */
export function refuseUnknownOptions(
  given: object | undefined,
  known: readonly string[],
  where: string,
  misplaced: Readonly<Record<string, string>> = {},
): void {
  if (given === undefined || given === null) return
  if (typeof given !== 'object' || Array.isArray(given)) throw new ConfigError(`${where} must be an object; got ${JSON.stringify(given)}`)
  for (const key of Object.keys(given)) {
    if (known.includes(key)) continue
    const reason = misplaced[key] ?? suggestion(key, known)
    throw new ConfigError(`unknown option ${where}.${key}${reason ? `: ${reason}` : ''}`)
  }
}

/** "did you mean …?" for a key within a few edits of a known one (about half its length). */
function suggestion(key: string, known: readonly string[]): string | undefined {
  const within = Math.max(2, Math.ceil(key.length / 2))
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase())
    if (distance <= within && (!best || distance < best.distance)) best = { name, distance }
  }
  return best ? `did you mean ${best.name}?` : `it takes ${known.join(', ')}`
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = row
  }
  return previous[b.length]!
}
