/**
 * Refusing options nobody reads. A misspelt or misplaced option (`compactEvery` beside `appendLog`
 * instead of inside it, `prefix` where PostgreSQL takes `tablePrefix`, `durablity` for
 * `durability`) would otherwise be dropped in silence and the default would run: a journal in
 * snapshot mode its owner believes is an append log, a bot without its journals. The bot's config
 * and every public options object of a backend go through `refuseUnknownOptions`.
 */
import { ConfigError, UnknownOptionError } from '../errors/errors.js'

/**
 * Every option name of `T`, spelled once as an object so the compiler fails when `T` gains or
 * loses one and the list is not updated.
 */
export function optionNames<T extends object>(names: { [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(names)
}

/**
 * Throws an `UnknownOptionError` naming each key of `options` that is not in `known`. `misplaced`
 * maps a name a caller is likely to pass by mistake to where it belongs ("under appendLog: {
 * compactEvery }"); otherwise a close known name is suggested ("did you mean retries?"). `undefined`
 * options pass (the defaults apply).
 * @param owner what takes the options, as the caller wrote it (`FileDurability.open`, `durability.outbox`).
 */
export function refuseUnknownOptions(
  owner: string,
  options: unknown,
  known: readonly string[],
  misplaced: Readonly<Record<string, string>> = {},
): void {
  if (options === undefined) return
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigError(
      `${owner}: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`,
    )
  }
  const unknown = Object.keys(options).filter((name) => !known.includes(name))
  if (unknown.length === 0) return
  const named = unknown.map((name) => {
    const hint = Object.hasOwn(misplaced, name) ? misplaced[name] : closest(name, known)
    return hint ? `"${name}" (${hint})` : `"${name}"`
  })
  throw new UnknownOptionError(
    owner,
    unknown,
    `${owner}: unknown option${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; it takes ${known.join(', ')}`,
  )
}

/** "did you mean …?" for a known name a few edits away (about half the name, and never all of it). */
function closest(name: string, known: readonly string[]): string | undefined {
  const within = Math.min(name.length - 1, Math.max(2, Math.ceil(name.length / 2)))
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase())
    if (distance <= within && (!best || distance < best.distance)) best = { name: candidate, distance }
  }
  return best && `did you mean ${best.name}?`
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = row
  }
  return previous[b.length]!
}
