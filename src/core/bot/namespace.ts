/** A bot's namespace, and the scope id derived from it: the bot's own view of a shared backend. */
import { ConfigError } from '../errors/errors.js'

/** A bot's namespace: its journals are kept apart from every other namespace's on a shared backend. */
export interface NamespaceOptions {
  /** @default 'default' */
  tenantId?: string
  /** @default 'default' */
  environmentId?: string
  /** @default 'bot' */
  botId?: string
  /** @default 'default' */
  connectionId?: string
}

export type ResolvedNamespace = Required<NamespaceOptions>

/**
 * The longest namespace part, in characters: the scope id built from the four parts is part of
 * every journal key, and every backend must hold the key (PostgreSQL's index takes rows up to
 * about 2.7 kB).
 */
export const NAMESPACE_PART_LENGTH_MAX = 64

export function resolveNamespace(options: NamespaceOptions): ResolvedNamespace {
  const namespace = {
    tenantId: options.tenantId ?? 'default',
    environmentId: options.environmentId ?? 'default',
    botId: options.botId ?? 'bot',
    connectionId: options.connectionId ?? 'default',
  }
  for (const [name, value] of Object.entries(namespace)) {
    if (typeof value !== 'string' || !value || /[/\s{}\u0000-\u001f\u007f]/.test(value) || value.length > NAMESPACE_PART_LENGTH_MAX)
      throw new ConfigError(
        `${name} must be a non-empty string of at most ${NAMESPACE_PART_LENGTH_MAX} characters without '/', braces, spaces or control characters; got ${JSON.stringify(value)}`,
      )
  }
  return namespace
}

/** `<tenantId>/<environmentId>/<botId>/<connectionId>`. */
export function scopeIdOf(namespace: ResolvedNamespace): string {
  return `${namespace.tenantId}/${namespace.environmentId}/${namespace.botId}/${namespace.connectionId}`
}
