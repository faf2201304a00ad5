/** The options a provider cannot start without, checked when it is constructed. */
import { ProviderConfigError } from './errors.js'

/** Throws `ProviderConfigError` naming the first of `keys` that is not a non-empty string in `options`. */
export function requireStrings<Options extends object>(channel: string, options: Options, keys: readonly (keyof Options & string)[]): void {
  for (const key of keys) {
    const value: unknown = options[key]
    if (typeof value !== 'string' || value.length === 0) throw new ProviderConfigError(channel, `${key} is required`)
  }
}
