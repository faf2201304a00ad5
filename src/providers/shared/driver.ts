/**
 * Channel client packages are optional peer dependencies: a user installs only their channel's.
 * One loads when its provider first needs it, so `import 'botmesh/core'` (or a provider's module)
 * never loads it, and a missing one fails with `DRIVER_MISSING` (final), one line naming the
 * package and the command that installs it, as a missing backend driver does (core/platform/driver.ts
 * decides what is missing, for every optional peer).
 */
import { loadDriver as loadPackage } from '../../core/platform/driver.js'
import { DriverMissingError } from '../../core/errors/errors.js'
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
    return await loadPackage({ packageName, neededBy: `the ${channel} provider`, load, version })
  } catch (cause) {
    if (cause instanceof DriverMissingError) throw cause
    // Installed, but it failed to load (a missing dependency of its own, a release it cannot run on).
    const install = version ? `${packageName}@${version}` : packageName
    throw new ProviderConfigError(
      channel,
      `the ${packageName} package could not be loaded (npm install ${install}): ${cause instanceof Error ? cause.message : String(cause)}`,
    )
  }
}
