/**
 * `doctor`: every check botmesh knows for the store a backend URL names (the gateway's
 * `diagnoseBackend`), with the counts by status and whether any failed. It reads and never changes
 * the journal; the checks of a folder write a file of their own there and remove it.
 */
import { diagnoseBackend, type DiagnoseOptions, type DoctorCheck, type DoctorStatus } from './gateway/doctor.js'
import { scrubSecrets, type BackendTarget } from './gateway/open.js'

/** What `doctor` reports (docs/cli-json.md, "doctor"). */
export interface DoctorReport {
  /** The backend URL, password redacted. */
  backend: string
  kind: BackendTarget['kind']
  /** No check failed (the command exits 0). */
  ok: boolean
  counts: Record<DoctorStatus, number>
  checks: DoctorCheck[]
}

/** Checks the store `target` names. */
export async function diagnose(target: BackendTarget, options: DiagnoseOptions = {}): Promise<DoctorReport> {
  // A driver's message may echo what the URL holds: no report shows a password.
  const checks = (await diagnoseBackend(target, options)).map((check) => ({
    ...check,
    found: scrubSecrets(check.found, target.secrets),
  }))
  const counts: Record<DoctorStatus, number> = { ok: 0, warn: 0, fail: 0 }
  for (const check of checks) counts[check.status]++
  return { backend: target.label, kind: target.kind, ok: counts.fail === 0, counts, checks }
}
