/**
 * `botmesh doctor`'s way into the backends: the checks of the store a backend URL names, without
 * opening its journal (so a server or folder that holds none yet is checked as well). Each
 * backend's module, and so its driver, loads only when its URL is checked. A bare name checks
 * where its throwaway instances go (the temp folder, the default servers), as `conformance` and
 * `bench` use them.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DOCTOR_LIMITS, doctorCheck, type DoctorCheck, type DoctorLimits } from '../../backends/common/doctor.js'
import type { BackendTarget } from './backend-url.js'
import { THROWAWAY_DEFAULTS, type ThrowawayOptions } from './throwaway.js'

export { DOCTOR_LIMITS, type DoctorCheck, type DoctorLimits, type DoctorStatus } from '../../backends/common/doctor.js'

/** Options of `diagnoseBackend`. */
export interface DiagnoseOptions extends Pick<ThrowawayOptions, 'redisUrl' | 'postgresUrl' | 'connectTimeoutMs'> {
  /** @default DOCTOR_LIMITS */
  limits?: Partial<DoctorLimits>
}

/** Every check botmesh knows for the store `target` names, in the order a screen shows them. */
export async function diagnoseBackend(target: BackendTarget, options: DiagnoseOptions = {}): Promise<DoctorCheck[]> {
  const limits: DoctorLimits = { ...DOCTOR_LIMITS, ...options.limits }
  switch (target.kind) {
    case 'memory':
      return [
        doctorCheck(
          'persistence',
          'warn',
          'in memory: the journal lives in the process, so a restart loses it',
          'Give the bot a store that keeps it: sqlite:, file:, redis:// or postgres://',
        ),
      ]
    case 'file':
    case 'events': {
      const { fileSystemChecks } = await import('../../backends/common/file-system-doctor.js')
      return fileSystemChecks(pathOf(target), limits)
    }
    case 'sqlite': {
      const { diagnoseSqlite } = await import('../../backends/sqlite/doctor.js')
      return diagnoseSqlite(pathOf(target), limits)
    }
    case 'redis': {
      const { diagnoseRedis } = await import('../../backends/redis/doctor.js')
      const { redisOptionsFromUrl } = await import('../../backends/redis/url.js')
      const given = target.throwaway ? redisOptionsFromUrl(options.redisUrl ?? THROWAWAY_DEFAULTS.redisUrl) : target.redis
      const { prefix: _prefix, prefixGiven: _given, ...connection } = given as typeof given & { prefixGiven?: boolean }
      const timeouts = { connectTimeoutMs: options.connectTimeoutMs, commandTimeoutMs: options.connectTimeoutMs }
      return diagnoseRedis({ connection: { ...connection, ...timeouts }, limits })
    }
    case 'postgres': {
      const { diagnosePostgres } = await import('../../backends/postgres/doctor.js')
      return diagnosePostgres({
        connectionString: target.throwaway ? (options.postgresUrl ?? THROWAWAY_DEFAULTS.postgresUrl) : target.connectionString,
        requirePersistence: !target.throwaway && target.requirePersistence,
        connectTimeoutMs: options.connectTimeoutMs,
        limits,
      })
    }
  }
}

/** The journal file a file-kept target names; a bare name's instances go under the temp folder. */
function pathOf(target: Extract<BackendTarget, { kind: 'file' | 'sqlite' | 'events' }>): string {
  if (target.throwaway || target.path === undefined) return join(tmpdir(), 'botmesh-throwaway')
  return target.path
}
