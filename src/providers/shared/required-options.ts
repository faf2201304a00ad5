/** The options a provider cannot start without, checked when it is constructed. */
import { ProviderConfigError } from './errors.js'
import { withoutTrailingSlashes } from './url.js'

/** Throws `ProviderConfigError` naming the first of `keys` that is not a non-empty string in `options`. */
export function requireStrings<Options extends object>(channel: string, options: Options, keys: readonly (keyof Options & string)[]): void {
  for (const key of keys) {
    const value: unknown = options[key]
    if (typeof value !== 'string' || value.length === 0) throw new ProviderConfigError(channel, `${key} is required`)
  }
}

/** The http(s) URL `options[key]` names, without its trailing slashes; `ProviderConfigError` naming `key` when it is not one. */
export function requireHttpUrl<Options extends object>(channel: string, options: Options, key: keyof Options & string): string {
  const value: unknown = options[key]
  if (typeof value !== 'string' || !/^https?:\/\//.test(value)) throw new ProviderConfigError(channel, `${key} must be an http(s) URL`)
  return withoutTrailingSlashes(value)
}
