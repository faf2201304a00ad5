/** The human view of `doctor`: one line a check (status, name, what was found), what to set under it, and a summary. */
import type { DoctorStatus } from '../../operator/gateway/doctor.js'
import type { Block, Tone } from '../output.js'
import type { DoctorReport } from '../../operator/doctor.js'

const MARK: Record<DoctorStatus, string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL' }
const TONE: Record<DoctorStatus, Tone | undefined> = { ok: undefined, warn: 'yellow', fail: 'red' }

export function doctorView(report: DoctorReport): Block[] {
  const width = Math.max(...report.checks.map((check) => check.name.length))
  // Status, name, then what was found: wrapped lines start under it.
  const hang = 4 + 2 + width + 2
  const indent = ' '.repeat(hang)
  const blocks: Block[] = [{ text: `botmesh doctor: ${report.backend}`, tone: 'bold' }]
  for (const check of report.checks) {
    blocks.push({ text: `${MARK[check.status].padEnd(4)}  ${check.name.padEnd(width)}  ${check.found}`, tone: TONE[check.status], hang })
    if (check.fix) blocks.push({ text: `${indent}fix: ${check.fix}`, hang })
  }
  const { ok, warn, fail } = report.counts
  const verdict = fail > 0 ? 'a check failed (exit 1)' : warn > 0 ? 'no check failed; read the warnings' : 'all good'
  blocks.push({ text: `${ok} ok, ${warn} warn, ${fail} fail: ${verdict}`, tone: fail > 0 ? 'red' : warn > 0 ? 'yellow' : 'green' })
  return blocks
}
