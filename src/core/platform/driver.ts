/**
 * Drivers (better-sqlite3, ioredis, pg) and channel clients (grammy, twilio, …), prom-client and
 * @opentelemetry/api are optional peer dependencies: a user installs only the ones they use. Each
 * loads when its backend, provider or exporter first needs it, through this one function, so
 * importing botmesh (or any subpath) loads none of them, and a missing one fails with one line
 * (`DRIVER_MISSING`) naming the package and the command that installs it.
 */
import { DriverMissingError } from '../errors/errors.js'

/** What `loadDriver` loads, and who asks for it. */
export interface DriverRequest<Module> {
  /** The npm package, as installed: `'ioredis'`, `'@discordjs/rest'`. */
  packageName: string
  /** Who needs it, for the message: `'botmesh/redis-store'`, `'the Telegram provider'`. */
  neededBy: string
  /** A literal `() => import('package')`, so a bundler keeps the package external. */
  load: () => Promise<Module>
  /** The range to install when npm's default tag is not one botmesh works with (`'^7.0.0-rc14'`). */
  version?: string
}

/** Node's codes for a package that cannot be resolved (ESM, then CommonJS). */
const NOT_FOUND_CODES = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'])

/**
 * Imports the package; rejects with `DriverMissingError` (`DRIVER_MISSING`) when it is not installed.
 * Any other failure (a native addon built for another Node.js, a file missing inside an installed
 * package, an error thrown while it loads) is passed on as it is: installing the package again
 * would not be the cure.
 */
export async function loadDriver<Module>(request: DriverRequest<Module>): Promise<Module> {
  try {
    return await request.load()
  } catch (error) {
    if (!isPackageMissing(error, request.packageName)) throw error
    const install = request.version ? `${request.packageName}@${request.version}` : request.packageName
    throw new DriverMissingError(request.packageName, request.neededBy, error, install)
  }
}

/**
 * Whether `error` says that `packageName` itself could not be found: its message names the package
 * in quotes (Node's ESM and CommonJS wordings), not one of the package's own dependencies.
 */
function isPackageMissing(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code !== 'string' || !NOT_FOUND_CODES.has(code) || typeof message !== 'string') return false
  return [`'${packageName}'`, `"${packageName}"`, `'${packageName}/`].some((quoted) => message.includes(quoted))
}
