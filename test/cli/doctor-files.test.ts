/**
 * `botmesh doctor` on journals kept in files (file, SQLite, events), the built binary: the folder's
 * checks, SQLite's settings as the store opens a file, nothing of the operator's opened or left
 * behind; tmpfs (/dev/shm) named as a file system that keeps nothing across a power loss, and a
 * folder where nothing can be written a fail.
 */
import { existsSync, readdirSync, statfsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { doctorJson } from './doctor-run.js'
import { botmeshOnTerminal, COLOUR, useTempDirs } from './helpers.js'

const FOLDER_CHECKS = ['directory', 'file system', 'fsync', 'free space']

/** tmpfs's statfs type on Linux. */
const TMPFS = 0x01021994
const shmIsTmpfs = (() => {
  try {
    return statfsSync('/dev/shm').type === TMPFS
  } catch {
    return false
  }
})()
if (!shmIsTmpfs && process.env.CI !== 'true') console.warn('\n!!!!!!!! SKIPPED doctor on tmpfs: /dev/shm is not a tmpfs here !!!!!!!!\n')

describe('botmesh doctor on journals kept in files', () => {
  const tempDir = useTempDirs()

  it('SQLite: the folder, then journal_mode wal and synchronous FULL as the store opens a file; the folder left as it was', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'keep.txt'), 'the operator’s')
    const { run, report, line } = await doctorJson(`sqlite:${join(dir, 'bot.db')}`)
    expect(
      report.checks.map((check) => check.name),
      JSON.stringify(report.checks),
    ).toEqual([...FOLDER_CHECKS, 'journal_mode', 'synchronous'])
    expect(line('directory')).toMatchObject({ status: 'ok', found: dir })
    expect(line('fsync').status).toBe('ok')
    expect(line('journal_mode')).toMatchObject({ status: 'ok', found: expect.stringMatching(/^wal/) })
    expect(line('synchronous')).toMatchObject({ status: 'ok', found: expect.stringMatching(/^FULL/) })
    expect(run.code).toBe(report.counts.fail > 0 ? 1 : 0)
    // The journal file was not created, and the probes are gone.
    expect(readdirSync(dir)).toEqual(['keep.txt'])
  })

  it('a file journal whose folder does not exist yet: checked in the nearest folder that does, nothing created', async () => {
    const dir = tempDir()
    const { report, line } = await doctorJson(`file:${join(dir, 'a', 'b', 'durable.json')}`)
    expect(report.checks.map((check) => check.name)).toEqual(FOLDER_CHECKS)
    expect(line('directory')).toMatchObject({ status: 'ok', found: expect.stringContaining(`does not exist yet`) })
    expect(line('directory').found).toContain(`ran in ${dir},`)
    expect(line('fsync').status).toBe('ok')
    expect(existsSync(join(dir, 'a'))).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })

  it.runIf(shmIsTmpfs)('an events journal on tmpfs: the file system line warns, naming tmpfs', async () => {
    const { run, line } = await doctorJson(`events:/dev/shm/botmesh-doctor-${process.pid}/events.json`)
    expect(line('file system')).toMatchObject({ status: 'warn', found: expect.stringMatching(/^tmpfs: .*power loss/) })
    expect(line('file system').fix).toContain('local disk')
    expect(run.code).toBe(0)
  })

  it('a folder where nothing can be written (/proc): fsync fails, exit 1', async () => {
    const { run, line } = await doctorJson('file:/proc/botmesh-doctor/durable.json')
    expect(line('fsync')).toMatchObject({ status: 'fail', found: expect.stringContaining('a bot could not make a journal write durable') })
    expect(line('file system').status).toBe('warn')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('(CHECK_FAILED)')
  })

  it('on a narrow terminal each line wraps under what was found, never past the width', async () => {
    const dir = tempDir()
    const run = await botmeshOnTerminal(['doctor', '--backend', 'file:a/durable.json'], { columns: 60, cwd: dir })
    const lines = run.stdout.replace(new RegExp(COLOUR.source, 'g'), '').split('\r\n').filter(Boolean)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60)
    // A line is the header, a check, the summary, or a wrap under what was found ("ok    file system  " is 19 columns).
    expect(lines[0]).toMatch(/^botmesh doctor: /)
    expect(lines.at(-1)).toMatch(/^\d+ ok, \d+ warn, \d+ fail: /)
    for (const line of lines.slice(1, -1)) expect(line, line).toMatch(/^(ok|WARN|FAIL) +\S|^ {19}\S/)
    expect(lines.filter((line) => /^ {19}\S/.test(line)).length).toBeGreaterThan(1)
  })

  it('memory: one line, the journal does not outlive the process', async () => {
    const { run, report } = await doctorJson('memory')
    expect(report.checks).toEqual([expect.objectContaining({ name: 'persistence', status: 'warn' })])
    expect(run.code).toBe(0)
  })
})
