/**
 * Every example in the README and the docs/ pages works as written: each ```ts block is a program
 * that type-checks against the sources as it stands, unless its first line says `// fragment` (a
 * part of a program: the names it leaves to the reader are declared for it). The README's bots and
 * the getting-started bot run, on a MockProvider in place of their channel.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { inspect, promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { SQLiteStore, TABLES } from '../../src/backends/sqlite/index.js'
import { waitFor } from '../../test-utils/wait.js'

const ROOT = join(import.meta.dirname, '..', '..')
// Inside the repository, so that node_modules resolve; removed after the file's tests.
const DIR = join(ROOT, 'test', 'readme', `.snippets-${process.pid}`)
mkdirSync(DIR, { recursive: true })
afterAll(() => rmSync(DIR, { recursive: true, force: true }))

/** The package paths the snippets import, as the sources they are built from (package.json's exports). */
const PACKAGE_PATHS: Record<string, string> = Object.fromEntries(
  Object.entries(
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> }).exports,
  ).map(([path, target]) => [path.replace(/^\./, 'botmesh'), target.import.replace(/^\.\/dist\//, 'src/')]),
)

/** What a fragment leaves to the reader (a provider, a bot, a chat id…), declared so that it type-checks. */
const READER_NAMES: Record<string, string> = {
  provider: `declare const provider: import('${source('botmesh/core')}').IProvider`,
  bot: `declare const bot: import('${source('botmesh/core')}').Bot`,
  store: `declare const store: import('${source('botmesh/core')}').Store`,
  backend: `declare const backend: import('${source('botmesh/core')}').DurabilityBackend`,
  journal: `declare const journal: import('${source('botmesh/events')}').FileEventJournal`,
  logger: 'declare const logger: { error(message: string, ...details: unknown[]): void }',
  chatId: 'declare const chatId: string',
  appointment: 'declare const appointment: { id: string }',
  id: 'declare const id: string',
  key: 'declare const key: string',
  alert: 'declare function alert(...args: unknown[]): void',
  audit: 'declare function audit(...args: unknown[]): void',
  ship: 'declare function ship(payload: unknown): Promise<void>',
  MyKv: `declare const MyKv: new () => import('${source('botmesh/core/spi')}').DurableKv`,
}

/** The reader's names a fragment uses without declaring them itself. */
function readerNames(snippet: string): string {
  const declared = (name: string) =>
    new RegExp(`(const|let|function|class|import)\\s+(\\{[^}]*\\b${name}\\b|${name}\\b)|import \\{[^}]*\\b${name}\\b`).test(snippet)
  return Object.entries(READER_NAMES)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(snippet) && !declared(name))
    .map(([, declaration]) => declaration)
    .join('\n')
}

function source(specifier: string): string {
  const path = PACKAGE_PATHS[specifier]
  if (!path) throw new Error(`a snippet imports ${specifier}, which package.json does not export`)
  return relative(DIR, join(ROOT, path)).replace(/^(?!\.)/, './')
}

/** An example in a Markdown page: where it is, and its code. */
interface Snippet {
  page: string
  index: number
  code: string
}

/** Pages whose ```ts blocks are not examples: the JSON shapes of the CLI's output, in TypeScript's type notation. */
const SHAPES_ONLY = new Set(['docs/cli-json.md'])

/** The README and every page under docs/ (not the generated API reference). */
function pages(): string[] {
  const found = ['README.md']
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory() && path !== 'docs/api') walk(path)
      else if (entry.name.endsWith('.md') && !SHAPES_ONLY.has(path)) found.push(path)
    }
  }
  walk('docs')
  return found
}

function snippetsOf(page: string): Snippet[] {
  const text = readFileSync(join(ROOT, page), 'utf8')
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match, index) => ({ page, index, code: match[1]! }))
}

/** The first line of a block that is a part of a program, not one: `// fragment`, maybe followed by what it is part of. */
const FRAGMENT = /^\/\/ fragment\b/

/** A snippet as a module of its own: package paths made source paths; a fragment given its context. */
function asModule(snippet: string): string {
  const imported = snippet
    .replace(/from '(botmesh[^']*)'/g, (_, specifier: string) => `from '${source(specifier)}'`)
    .replace(/from '\.\/test-utils\/([^']*)'/g, (_, path: string) => `from '${relative(DIR, join(ROOT, 'test-utils', path))}.js'`)
  if (!FRAGMENT.test(snippet)) return `${imported}\nexport {}\n`
  const core = /^import /m.test(snippet) ? '' : `import { IMAGE, loadMediaOf, MediaUnavailableError } from '${source('botmesh/core')}'\n`
  return `${core}${imported}\n${readerNames(snippet)}\nexport {}\n`
}

/** Runs a program with a MockProvider for its channel (its `const provider = …` line), and hands back what it names. */
async function run<T>(name: string, program: string, exported: string): Promise<T> {
  const file = join(DIR, `${name}.ts`)
  const mock = `import { MockProvider as SnippetMockProvider } from '${source('botmesh/core/testing')}'\n`
  const mocked = program.replace(/^const provider = .*$/m, 'const provider = new SnippetMockProvider()')
  writeFileSync(file, `${mock}${asModule(mocked)}\nexport { ${exported} }\n`)
  return (await import(file)) as T
}

type MockProvider = import('../../src/testing/index.js').MockProvider
type Bot = import('../../src/core/bot/bot.js').Bot

describe('the examples of the README and docs/', () => {
  const snippets = pages().flatMap(snippetsOf)

  it('are there, on the pages that teach with them', () => {
    const onPage = (page: string) => snippets.filter((snippet) => snippet.page === page).length
    expect(snippets[0]?.code).toContain('new Bot(')
    for (const page of ['README.md', 'docs/getting-started.md', 'docs/operating.md', 'docs/backends/file.md', 'docs/providers/telegram.md'])
      expect(onPage(page), page).toBeGreaterThan(0)
  })

  it("the README's and the channel pages' bots are programs, not fragments", () => {
    const programPages = (page: string) => page === 'README.md' || page.startsWith('docs/providers/')
    const fragments = snippets.filter((snippet) => programPages(snippet.page) && FRAGMENT.test(snippet.code))
    expect(fragments.map((snippet) => `${snippet.page} #${snippet.index}`)).toEqual([])
  })

  // tsc runs in a child process: checking some forty modules takes a minute on a loaded machine (three
  // beside other work), and the test worker must keep answering vitest meanwhile.
  it('type-check against the sources', async () => {
    const files = snippets.map((snippet) => {
      const file = join(DIR, `${snippet.page.replace(/[/.]/g, '_')}-${snippet.index}.ts`)
      writeFileSync(file, asModule(snippet.code))
      return relative(DIR, file)
    })
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      strict: true,
      skipLibCheck: true,
      esModuleInterop: true,
      types: ['node'],
      noEmit: true,
    }
    writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }))
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const problems = await promisify(execFile)(process.execPath, [tsc, '-p', DIR, '--pretty', 'false']).then(
      () => [],
      (failed: { stdout: string }) => failed.stdout.split('\n').filter(Boolean),
    )
    expect(problems).toEqual([])
  }, 420_000)

  it("the README's first bot is five lines from one import path, journals in its SQLite file and echoes a text", async () => {
    const program = snippetsOf('README.md')[0]!.code
    expect(program.trimEnd().split('\n')).toHaveLength(5)
    expect(new Set([...program.matchAll(/from '([^']+)'/g)].map((match) => match[1]))).toEqual(new Set(['botmesh/telegram']))
    expect(program).toMatch(/^const provider = new TelegramProvider\(/m)
    const file = join(DIR, 'first-bot.db')
    const { bot, provider } = await run<{ bot: Bot; provider: MockProvider }>(
      'first-bot',
      program.replace("'./data/bot.db'", JSON.stringify(file)),
      'bot, provider',
    )
    try {
      expect(bot.store).toBeInstanceOf(SQLiteStore)
      await provider.receive({ id: 'm1', chatId: 'ann', text: 'hello' })
      await waitFor(() => provider.texts('ann').includes('hello'))
      await bot.idle()
      expect((await bot.durability!.inbox.list()).map((record) => record.state)).toEqual(['done'])
      expect((await bot.durability!.outbox.list()).map((record) => record.state)).toEqual(['sent'])
    } finally {
      await bot.stop()
    }
    // The journals are in the store's own file, not in memory: the inbound record and the send are there after the stop.
    const db = new Database(file, { readonly: true })
    try {
      const journaled = db.prepare(
        `select collection, state from ${TABLES.durable} where collection in ('inbox', 'outbox') order by collection`,
      )
      expect(journaled.all()).toEqual([
        { collection: 'inbox', state: 'done' },
        { collection: 'outbox', state: 'sent' },
      ])
    } finally {
      db.close()
    }
  }, 60_000)

  it('the README\'s bot with its parts spelled out runs on a MockProvider: "signup" starts the flow, other text is echoed', async () => {
    const snippet = snippetsOf('README.md').find((s) => s.code.includes("flow('signup')"))!.code
    // The bot up to "… later", on a journal in the temp folder, with a MockProvider for `provider`.
    const body = snippet.slice(0, snippet.indexOf('// … later')).replace("'./data/bot.db'", JSON.stringify(join(DIR, 'bot.db')))
    const { bot, provider } = await run<{ bot: { stop(): Promise<void> }; provider: MockProvider }>('a-bot', body, 'bot, provider')
    try {
      await provider.receive({ id: 'm1', chatId: 'ann', text: 'signup' })
      await waitFor(() => provider.texts('ann').includes('Your name?'))
      await provider.receive({ id: 'm2', chatId: 'ann', text: 'Ann' })
      await waitFor(() => provider.texts('ann').includes('Your email?'))
      await provider.receive({ id: 'm3', chatId: 'ann', text: 'ann@example.com' })
      await waitFor(() => provider.texts('ann').includes('Thanks Ann'))
      await provider.receive({ id: 'm4', chatId: 'bob', text: 'hello' })
      await waitFor(() => provider.texts('bob').includes('echo: hello'))
      expect(provider.texts('ann')).not.toContain('echo: signup')
    } finally {
      await bot.stop()
    }
  }, 60_000)

  it('the getting-started bot prints what its comment says, and stops', async () => {
    const snippet = snippetsOf('docs/getting-started.md').find((s) => s.code.includes('new MockProvider()'))!.code
    const expected = /console\.log\(.*\/\/ (.*)$/m.exec(snippet)![1]
    const body = `const printed: unknown[] = []\n${snippet.replace('console.log(', 'printed.push(')}`
    const { printed } = await run<{ printed: unknown[] }>('getting-started', body, 'printed')
    expect(printed.map((value) => inspect(value))).toEqual([expected])
  }, 60_000)
})
