#!/usr/bin/env node
/**
 * The public surface as API Extractor reads it from the built declarations: one report per package
 * export (package.json "exports"), checked into etc/api/. `npm run check:api` fails when a built
 * surface differs from its report, so a change to a public name shows in review as a change to
 * etc/api/*.api.md; `npm run api:report` writes the reports anew after such a change.
 *
 * Usage: node scripts/api-report.mjs [--update] [--reports <dir>]   (after `npm run build`)
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor'

const ROOT = resolve(import.meta.dirname, '..')
const { values } = parseArgs({ options: { update: { type: 'boolean', default: false }, reports: { type: 'string', default: 'etc/api' } } })
const reportFolder = resolve(ROOT, values.reports)
/** Where API Extractor writes the report of what was built, to compare with the checked-in one. */
const BUILT_REPORTS = join(ROOT, 'node_modules', '.cache', 'api-report')

/** One report per declaration file: `.` and `./core` are the same entry, reported once as `botmesh`. */
function reportedEntries(pkg) {
  const byTypes = new Map()
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (!byTypes.has(target.types)) byTypes.set(target.types, subpath === '.' ? pkg.name : `${pkg.name}${subpath.slice(1)}`)
  }
  return [...byTypes].map(([types, name]) => ({ types: join(ROOT, types), name, report: name.replaceAll('/', '-') }))
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const entries = reportedEntries(pkg)
const missing = entries.filter((entry) => !existsSync(entry.types))
if (missing.length > 0) {
  console.error(`api-report: ${missing.map((entry) => entry.types).join(', ')} not built; run npm run build first`)
  process.exit(1)
}
mkdirSync(reportFolder, { recursive: true })

// Messages about the declarations' style (release tags, forgotten exports) are TypeDoc's business
// (npm run docs); the report is about the surface alone.
const configOf = (entry) =>
  ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: [entry.types],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder,
        reportTempFolder: BUILT_REPORTS,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: { default: { logLevel: 'none' } },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    packageJsonFullPath: join(ROOT, 'package.json'),
  })

/** Prints how the built surface differs from the report, as a diff from the report. */
function showDifference(report) {
  const file = `${report}.api.md`
  spawnSync('git', ['diff', '--no-index', '--', join(reportFolder, file), join(BUILT_REPORTS, file)], { stdio: 'inherit' })
}

/** API Extractor's per-entry notes, summed up at the end instead of printed one by one. */
const PER_ENTRY_NOTES = new Set([
  'console-api-report-changed',
  'console-api-report-copied',
  'console-api-report-not-copied',
  'console-api-report-created',
  'console-api-report-missing',
  'console-compiler-version-notice',
])

function quietReportNotes(message) {
  if (PER_ENTRY_NOTES.has(message.messageId)) message.handled = true
}

const configs = entries.map(configOf)
// One TypeScript program for every entry: building it is most of the time a report takes.
const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: entries.map((entry) => entry.types) })
const changed = []
for (const [index, config] of configs.entries()) {
  const result = Extractor.invoke(config, { localBuild: values.update, compilerState, messageCallback: quietReportNotes })
  if (result.apiReportChanged) {
    changed.push(entries[index].report)
    if (!values.update) showDifference(entries[index].report)
  }
  if (result.errorCount > 0) changed.push(`${entries[index].report} (${result.errorCount} errors)`)
}
if (changed.length > 0 && !values.update) {
  console.error(
    `check:api: the public surface differs from its report in ${values.reports}: ${changed.join(', ')}.\n` +
      'If the change is meant, run npm run api:report and commit the reports; the diff is what a reviewer reads.',
  )
  process.exit(1)
}
console.log(
  values.update
    ? `api-report: ${entries.length} reports in ${values.reports}, ${changed.length} changed${changed.length ? `: ${changed.join(', ')}` : ''}`
    : `check:api: ${entries.length} reports in ${values.reports} match the built surface`,
)
