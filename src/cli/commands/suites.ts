/** What the suite commands (conformance, crash-matrix, bench) share: a throwaway factory for the named backend. */
import { throwawayFactory, type ThrowawayFactory, type ThrowawayOptions } from '../../operator/throwaway.js'
import type { Cli } from '../context.js'
import { UsageError } from '../../operator/errors.js'

/** Throwaway instances of the backend the operator named, never the operator's data. */
export function suiteFactory(
  cli: Cli,
  command: string,
  extra: Pick<ThrowawayOptions, 'waitReplicas'> = {},
): { label: string; factory: ThrowawayFactory } {
  const config = cli.config()
  if (config.backendFrom === 'default') {
    throw new UsageError(
      `${command} needs --backend (a bare name such as memory, file, sqlite, redis or postgres runs on a throwaway instance; a URL runs beside it, never on its data)`,
    )
  }
  return {
    label: config.target.label,
    factory: throwawayFactory(config.target, { ...config.open, ...extra, logger: { error: (message) => cli.out.note(message) } }),
  }
}
