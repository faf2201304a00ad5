/**
 * Issue 45, item 7: `npm run docs` failed in a checkout without a git remote (a fork, a tarball, a
 * fresh `git init`): TypeDoc looked for the remote "origin" to make source links, and its warning
 * failed the run (warnings are errors). The repository's own TypeDoc config runs here in a fresh
 * `git init` with no remote, on one small entry point (the whole reference takes minutes): it must
 * pass, and take its source links from package.json's `repository` field, or make none.
 */
import { execFile, execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs config without declarations
import { sourceLinks } from '../../typedoc.config.mjs'
import { useTempDirs } from '../../test-utils/lifecycle.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const TYPEDOC = join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc')
const tempDir = useTempDirs('botmesh-docs-')

/** A checkout with the repository's TypeDoc config and tsconfig, one documented module, git without a remote. */
function checkout(repository: unknown): string {
  const dir = tempDir()
  // Whatever config file TypeDoc finds at the root (typedoc.json before this fix), copied as it is.
  for (const file of readdirSync(ROOT).filter((name) => name.startsWith('typedoc.') || name === 'tsconfig.json')) {
    copyFileSync(join(ROOT, file), join(dir, file))
  }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, repository }, null, 2))
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'index.ts'), '/** Says hello. */\nexport function hello(): string {\n  return "hello"\n}\n')
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' })
  git('init', '-q')
  git('add', 'src', 'package.json')
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'a fresh checkout')
  expect(git('remote').toString()).toBe('')
  return dir
}

/** What a run of TypeDoc's CLI printed, how it ended, and the source references of the JSON model it wrote. */
interface Run {
  status: number | null
  output: string
  sources: { url?: string }[]
}

/**
 * Runs TypeDoc's CLI in `dir` with the config found there, on src/index.ts only (its type check
 * skipped: the run is about the config, and it is most of the time on a loaded machine).
 */
function typedoc(dir: string): Promise<Run> {
  const args = [TYPEDOC, '--entryPoints', 'src/index.ts', '--skipErrorChecking', '--out', 'out', '--json', 'out.json']
  return new Promise((done, fail) => {
    execFile(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 85_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0
      if (status !== 0) return done({ status, output, sources: [] })
      try {
        const model = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as { children?: { sources?: { url?: string }[] }[] }
        done({ status, output, sources: model.children?.flatMap((child) => child.sources ?? []) ?? [] })
      } catch (cause) {
        fail(cause)
      }
    })
  })
}

describe('npm run docs in a checkout without a git remote', () => {
  // Both checkouts at once: each run is mostly TypeDoc and TypeScript starting up.
  let runs: Promise<[Run, Run]> | undefined
  const both = () =>
    (runs ??= Promise.all([
      typedoc(checkout(undefined)),
      typedoc(checkout({ type: 'git', url: 'git+https://github.com/example/botmesh.git' })),
    ]))

  it('passes, with no source links when package.json names no repository', async () => {
    const [result] = await both()
    expect(result.output).not.toMatch(/git remote/)
    expect(result.status, result.output).toBe(0)
    expect(result.sources.every((source) => source.url === undefined)).toBe(true)
  })

  it("links the sources through package.json's repository field, at the version's tag", async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
    const [, result] = await both()
    expect(result.status, result.output).toBe(0)
    expect(result.sources.map((source) => source.url)).toEqual([`https://github.com/example/botmesh/blob/v${version}/src/index.ts#L2`])
  })
})

describe("the repository field's forms", () => {
  const template = (repository: unknown) =>
    (sourceLinks({ repository, version: '1.2.3' }, ROOT) as { sourceLinkTemplate?: string }).sourceLinkTemplate
  it.each([
    ['example/bot', 'https://github.com/example/bot/blob/{gitRevision}/{path}#L{line}'],
    ['github:example/bot', 'https://github.com/example/bot/blob/{gitRevision}/{path}#L{line}'],
    ['gitlab:example/bot', 'https://gitlab.com/example/bot/-/blob/{gitRevision}/{path}#L{line}'],
    ['git@github.com:example/bot.git', 'https://github.com/example/bot/blob/{gitRevision}/{path}#L{line}'],
    [
      { url: 'https://github.com/example/mono', directory: 'packages/bot' },
      'https://github.com/example/mono/blob/{gitRevision}/packages/bot/{path}#L{line}',
    ],
  ])('%j', (repository, expected) => {
    expect(template(repository)).toBe(expected)
  })

  it('makes no links for a host it does not know, or without the field', () => {
    expect(sourceLinks({ repository: 'https://example.org/bot.git', version: '1.2.3' }, ROOT)).toEqual({ disableSources: true })
    expect(sourceLinks({ version: '1.2.3' }, ROOT)).toEqual({ disableSources: true })
    expect(sourceLinks({ repository: 'example/bot', version: '1.2.3' }, ROOT)).toMatchObject({
      displayBasePath: ROOT,
      disableGit: true,
      gitRevision: 'v1.2.3',
    })
  })
})
