/**
 * `botmesh doctor`'s findings, in one shape for every backend: each check is a line that says what
 * was found and, unless it is ok, what to set. What a status means is the same everywhere, and
 * follows what a start does (so the doctor never disagrees with the bot):
 *
 * - `fail`: a start refuses it (`requirePersistence` on a server without persistence, an evicting
 *   Redis not accepted, a replica that refuses writes), or it loses journal records while it runs;
 * - `warn`: a bot starts on it, and acknowledged writes may be lost in a restart, a failover or a
 *   power loss; or the setting could not be read, so it could not be checked;
 * - `ok`: nothing to do (a line may still name a small window, as a start says once at info level).
 */
import { persistenceAction, REQUIRE_PERSISTENCE_OPTION, type PersistenceFinding } from './persistence.js'

/** How a check came out. */
export type DoctorStatus = 'ok' | 'warn' | 'fail'

/** One line of the doctor's screen. */
export interface DoctorCheck {
  /** What was checked, stable for scripts: `persistence`, `maxmemory-policy`, `fsync`… */
  name: string
  status: DoctorStatus
  /** What was found, in words that name the settings. */
  found: string
  /** What to set (or do) instead; absent when there is nothing to do. */
  fix?: string
}

/** The doctor's bounds, each named with its unit. */
export const DOCTOR_LIMITS = {
  /** The server's clock may be this far from this machine's before the clock line warns. */
  clockSkewMsMax: 1_000,
  /** A replica may be this far behind (Redis: since its last acknowledgement; PostgreSQL: replay lag) before the replication line warns. */
  replicaLagMsMax: 2_000,
  /** Free space under a journal's directory below this warns: a full disk refuses every journal write. */
  diskFreeBytesMin: 1024 ** 3,
  /** Clock samples taken; the one with the shortest round trip is kept (its midpoint is the best estimate). */
  clockSamples: 3,
  /** Bytes the fsync check writes. */
  fsyncProbeBytes: 4_096,
} as const

/** The bounds a caller may change. */
export type DoctorLimits = { [Name in keyof typeof DOCTOR_LIMITS]: number }

/** A line. */
export function doctorCheck(name: string, status: DoctorStatus, found: string, fix?: string): DoctorCheck {
  return fix === undefined || status === 'ok' ? { name, status, found } : { name, status, found, fix }
}

/**
 * A persistence finding (persistence.ts) as a line, graded by the rule a start acts on
 * (`persistenceAction`): a refusal is a fail, a warning a warn, a line said once an ok that names
 * its window.
 */
export function persistenceCheck(name: string, finding: PersistenceFinding, requirePersistence: boolean): DoctorCheck {
  const action = persistenceAction(finding, requirePersistence)
  switch (finding.level) {
    case 'durable':
      return doctorCheck(name, 'ok', 'every acknowledged journal write is on disk')
    case 'window':
      return doctorCheck(name, 'ok', `${finding.settings}: ${finding.loses}`)
    case 'unreadable':
      return doctorCheck(
        name,
        'warn',
        `could not be checked: ${finding.settings} could not be read (${finding.why})`,
        `Make sure ${finding.check}`,
      )
    case 'volatile': {
      const refused = action === 'refuse' ? ', and requirePersistence is set, so a bot refuses to start on it' : ''
      const fix = action === 'refuse' ? finding.fix : `${finding.fix}; ${REQUIRE_PERSISTENCE_OPTION} refuses to start on such a server`
      return doctorCheck(name, action === 'refuse' ? 'fail' : 'warn', `${finding.settings}: ${finding.loses}${refused}`, fix)
    }
  }
}

/**
 * Runs one check; a check that throws (a command the server refuses, a permission) becomes a warn
 * line that says it could not be checked and why, never a crash of the whole doctor.
 */
export async function guarded(
  name: string,
  run: () => DoctorCheck | DoctorCheck[] | Promise<DoctorCheck | DoctorCheck[]>,
): Promise<DoctorCheck[]> {
  try {
    const checks = await run()
    return Array.isArray(checks) ? checks : [checks]
  } catch (error) {
    return [doctorCheck(name, 'warn', `could not be checked: ${error instanceof Error ? error.message : String(error)}`)]
  }
}

/** Whether a host is this machine (clear text to it never leaves the machine). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^127\./.test(bare) || bare.startsWith('/')
}

/** How far the server's clock is from this machine's, as a line; `roundTripMs` bounds the error of the estimate. */
export function clockCheck(skewMs: number, roundTripMs: number, limits: Pick<DoctorLimits, 'clockSkewMsMax'>): DoctorCheck {
  const side = skewMs >= 0 ? 'ahead of' : 'behind'
  // Half the round trip, and the millisecond both clocks are read to.
  const uncertaintyMs = roundTripMs / 2 + 1
  const found = `the server's clock is ${Math.abs(Math.round(skewMs))} ms ${side} this machine's (± ${Math.ceil(uncertaintyMs)} ms)`
  if (Math.abs(skewMs) - uncertaintyMs <= limits.clockSkewMsMax)
    return doctorCheck('clock', 'ok', `${found}; leases run on the server's clock, so a skew never moves them`)
  return doctorCheck(
    'clock',
    'warn',
    `${found}, over ${limits.clockSkewMsMax} ms: leases run on the server's clock, but this machine's logs, channel timestamps and webhook signature checks use its own`,
    'Run NTP (chrony or systemd-timesyncd) on this machine and on the server',
  )
}

/** Compares dotted versions (`7.0.15` < `7.2`). */
export function versionBelow(version: string, minimum: string): boolean {
  const a = version.split('.').map((part) => Number.parseInt(part, 10) || 0)
  const b = minimum.split('.').map((part) => Number.parseInt(part, 10) || 0)
  for (let n = 0; n < Math.max(a.length, b.length); n++) if ((a[n] ?? 0) !== (b[n] ?? 0)) return (a[n] ?? 0) < (b[n] ?? 0)
  return false
}
