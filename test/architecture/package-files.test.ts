/**
 * What `npm pack` puts in the package: dist, bin, docs, the README, the changelog and the licence
 * (package.json "files"), nothing else; and the version has its release in CHANGELOG.md.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; files: string[]; license: string }

describe('the package', () => {
  it('npm pack holds dist, bin, docs, README, CHANGELOG and LICENSE only', () => {
    const [report] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8' })) as {
      files: { path: string }[]
    }[]
    const top = new Set(report!.files.map((file) => file.path.split('/')[0]!))
    // dist is there once built; every other entry always is.
    top.delete('dist')
    expect([...top].sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'bin', 'docs', 'package.json'])
    expect(pkg.files).toEqual(['dist', 'bin', 'docs', 'CHANGELOG.md'])
  })

  it('the version is a release of CHANGELOG.md, in keep-a-changelog form', () => {
    const changelog = readFileSync('CHANGELOG.md', 'utf8')
    expect(changelog).toMatch(/^# Changelog\n/)
    expect(changelog).toContain('[Keep a Changelog](https://keepachangelog.com/en/1.1.0/)')
    const releases = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((match) => match[1])
    expect(releases[0] === 'Unreleased' ? releases[1] : releases[0]).toBe(pkg.version)
    expect(readFileSync('LICENSE', 'utf8')).toMatch(new RegExp(`^${pkg.license} License`))
  })
})
