/**
 * Refusing options nobody reads. A misspelt or misplaced option (`compactEvery` beside `appendLog`
 * instead of inside it, `prefix` where PostgreSQL takes `tablePrefix`) would otherwise be dropped
 * in silence and the default would run: a journal in snapshot mode its owner believes is an
 * append log. Every public options object of a backend goes through `refuseUnknownOptions`.
 */
import { ConfigError, UnknownOptionError } from './errors.js'

/**
 * Every option name of `T`, spelled once as an object so the compiler fails when `T` gains or
 * loses one and the list is not updated.
 */
export function optionNames<T extends object>(names: { [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(names)
}

/**
 * Throws a `ConfigError` naming each key of `options` that is not in `known`. `misplaced` maps a
 * name a caller is likely to pass by mistake to where it belongs ("under appendLog: { compactEvery }"),
 * so the message says what to write instead. `undefined` options pass (the defaults apply).
 * @param owner what takes the options, as the caller wrote it (`FileDurability.open`).
 */
export function refuseUnknownOptions(owner: string, options: unknown, known: readonly string[], misplaced: Readonly<Record<string, string>> = {}): void {
  if (options === undefined) return
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigError(`${owner}: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`)
  }
  const unknown = Object.keys(options).filter((name) => !known.includes(name))
  if (unknown.length === 0) return
  const named = unknown.map((name) => (Object.hasOwn(misplaced, name) ? `"${name}" (${misplaced[name]})` : `"${name}"`))
  throw new UnknownOptionError(owner, unknown, `${owner}: unknown option${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; it takes ${known.join(', ')}`)
}
