/**
 * Channel client packages are optional peer dependencies: a user installs only their channel's.
 * One loads when its provider first needs it, so `import 'botmesh/core'` (or a provider's module)
 * never loads it, and a missing one fails with one line naming the package to install.
 */
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
    throw new ProviderConfigError(
      channel,
      `the ${packageName} package is not installed (npm install ${version ? `${packageName}@${version}` : packageName}): ${cause instanceof Error ? cause.message : String(cause)}`,
    )
  }
}
