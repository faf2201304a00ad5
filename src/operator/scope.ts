/**
 * Which scope a command works in. A backend may hold several bots' journals (one scope each, named
 * `<tenantId>/<environmentId>/<botId>/<connectionId>`): `--scope` names one, `--bot` picks the one
 * of a botId, and with neither the only scope there is is used. Several and none chosen is bad
 * input, and the error lists them.
 */
import type { DurabilityBackend } from '../core/durability/journal/backend.js'
import { BotmeshError, ERROR_CODES } from '../core/errors/errors.js'
import { ScopeRequiredError } from './errors.js'

/** Which scope a command works in: one named, one bot's, or the only one there is. */
export interface ScopeChoice {
  scope?: string
  bot?: string
}

/** The scope of a bot with every namespace field left to its default: where an empty backend's records would go. */
export const DEFAULT_SCOPE = 'default/default/bot/default'

/** Resolves the choice against the scopes the backend holds. `allowNew`: a named scope need not hold records yet (import). */
export async function chooseScope(backend: DurabilityBackend, choice: ScopeChoice, options: { allowNew?: boolean } = {}): Promise<string> {
  const scopes = (await backend.scopes()).sort()
  if (choice.scope !== undefined) {
    if (options.allowNew || scopes.includes(choice.scope) || !backend.scoped) return choice.scope
    throw unknownScope(`no scope "${choice.scope}" in this backend`, scopes)
  }
  if (choice.bot !== undefined) {
    const matching = scopes.filter((scope) => scope.split('/')[2] === choice.bot || scope === choice.bot)
    if (matching.length === 1) return matching[0]!
    if (matching.length > 1) throw new ScopeRequiredError(matching, `the bot "${choice.bot}" has ${matching.length} scopes`)
    throw unknownScope(`no scope of the bot "${choice.bot}" in this backend`, scopes)
  }
  if (scopes.length === 0) return DEFAULT_SCOPE
  if (scopes.length === 1) return scopes[0]!
  throw new ScopeRequiredError(scopes, `the backend holds ${scopes.length} scopes`)
}

function unknownScope(what: string, scopes: string[]): BotmeshError {
  return new BotmeshError(ERROR_CODES.SCOPE_UNKNOWN, `${what}; it holds ${scopes.length === 0 ? 'no scopes' : scopes.join(', ')}`)
}
