/**
 * The names nearest to one that was not found, for a "looked for X; there are Y" message: a typo
 * in a prefix is one or two characters off, and the operator should see the right one first even
 * when a server holds hundreds of prefixes.
 */

/** Names a message lists at most. */
export const NEAREST_LISTED_MAX = 20

/** Up to `max` of `names`, nearest to `asked` first (edit distance, then name), and how many were left out. */
export function nearestNames(
  asked: string,
  names: Iterable<string>,
  max: number = NEAREST_LISTED_MAX,
): { names: string[]; leftOut: number } {
  const ranked = [...new Set(names)]
    .map((name) => ({ name, distance: editDistance(asked, name) }))
    .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { names: ranked.slice(0, max).map((entry) => entry.name), leftOut: Math.max(0, ranked.length - max) }
}

/** The names as a message lists them: quoted, nearest first, "none" when there are none. */
export function describeNearest(asked: string, names: Iterable<string>): string {
  const { names: nearest, leftOut } = nearestNames(asked, names)
  if (nearest.length === 0) return 'none'
  return `${nearest.map((name) => JSON.stringify(name)).join(', ')}${leftOut > 0 ? ` and ${leftOut} more` : ''}`
}

/** Levenshtein distance; names are short (prefixes), so the quadratic table is cheap. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
