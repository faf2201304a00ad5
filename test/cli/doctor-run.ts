/** `botmesh doctor --json` on a backend URL, as the doctor tests read it: the run, its report, and one line by name. */
import type { DoctorCheck } from '../../src/operator/gateway/doctor.js'
import type { DoctorReport } from '../../src/operator/doctor.js'
import { botmesh, jsonOf, type CliRun } from './helpers.js'

export async function doctorJson(url: string): Promise<{ run: CliRun; report: DoctorReport; line: (name: string) => DoctorCheck }> {
  const run = await botmesh(['doctor', '--backend', url, '--json'])
  const report = jsonOf<DoctorReport>(run)
  return { run, report, line: (name) => report.checks.find((check) => check.name === name)! }
}
