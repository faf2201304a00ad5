/**
 * Channel client packages are optional peer dependencies: a user installs only their channel's.
 * One loads when its provider first needs it, so `import 'botmesh/core'` (or a provider's module)
 * never loads it, and a missing one fails with `DRIVER_MISSING` (final), one line naming the
 * package and the command that installs it, as a missing backend driver does.
 */
import { DriverMissingError } from '../../core/errors.js'
import { ProviderConfigError } from './errors.js'

/**
 * Loads `packageName` through `load` (a literal `import()`, so bundlers keep it external). `version`
 * names the range to install when npm's default tag is not one the provider works with.
 */
export async function loadDriver<Module>(
  channel: string,
  packageName: string,
  load: () => Promise<Module>,
  version?: string,
): Promise<Module> {
  try {
    return await load()
  } catch (cause) {
    const install = version ? `${packageName}@${version}` : packageName
    if (isMissing(cause, packageName)) throw new DriverMissingError(packageName, `the ${channel} provider`, cause, install)
    // Installed, but it failed to load (a missing dependency of its own, a release it cannot run on).
    throw new ProviderConfigError(
      channel,
      `the ${packageName} package could not be loaded (npm install ${install}): ${cause instanceof Error ? cause.message : String(cause)}`,
    )
  }
}

/** Whether `error` says that `packageName` itself cannot be found (not one of its own dependencies). */
function isMissing(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  return typeof message === 'string' && (message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`))
}
