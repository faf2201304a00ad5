/** A bot's namespace, and the scope id derived from it: the bot's own view of a shared backend. */
import { ConfigError } from './errors.js'

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

export function resolveNamespace(options: NamespaceOptions): ResolvedNamespace {
  const namespace = {
    tenantId: options.tenantId ?? 'default',
    environmentId: options.environmentId ?? 'default',
    botId: options.botId ?? 'bot',
    connectionId: options.connectionId ?? 'default',
  }
  for (const [name, value] of Object.entries(namespace)) {
    if (!value || /[/\s{}]/.test(value))
      throw new ConfigError(`${name} must be a non-empty string without '/', braces or spaces; got ${JSON.stringify(value)}`)
  }
  return namespace
}

/** `<tenantId>/<environmentId>/<botId>/<connectionId>`. */
export function scopeIdOf(namespace: ResolvedNamespace): string {
  return `${namespace.tenantId}/${namespace.environmentId}/${namespace.botId}/${namespace.connectionId}`
}
