/**
 * The README's core sections ("A bot" and "Durable message processing") work as written: each
 * ```ts snippet type-checks against the sources (with the names it leaves to the reader declared),
 * and the "A bot" one runs on a MockProvider: the signup flow answers "signup", the echo the rest.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { waitFor } from '../../test-utils/wait.js'

const ROOT = join(import.meta.dirname, '..', '..')
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
// Inside the repository, so that node_modules resolve; removed after the file's tests.
const DIR = join(ROOT, 'test', 'readme', `.snippets-${process.pid}`)
mkdirSync(DIR, { recursive: true })
afterAll(() => rmSync(DIR, { recursive: true, force: true }))

/** The package paths the snippets import, as the sources they are built from. */
const PACKAGE_PATHS: Record<string, string> = {
  'botmesh/core': 'src/index.js',
  'botmesh/core/testing': 'src/core/testing/index.js',
  'botmesh/sqlite-store': 'src/backends/sqlite/index.js',
  'botmesh/prometheus': 'src/prometheus/index.js',
  'botmesh/telemetry': 'src/telemetry/index.js',
}

/** What a snippet leaves to the reader (a provider, a bot, a chat id…), declared so that it type-checks. */
const READER_NAMES: Record<string, string> = {
  provider: `declare const provider: import('${source('botmesh/core')}').IProvider`,
  bot: `declare const bot: import('${source('botmesh/core')}').Bot`,
  backend: `declare const backend: import('${source('botmesh/core')}').DurabilityBackend`,
  chatId: 'declare const chatId: string',
  appointment: 'declare const appointment: { id: string }',
  id: 'declare const id: string',
  key: 'declare const key: string',
  alert: 'declare function alert(...args: unknown[]): void',
  audit: 'declare function audit(...args: unknown[]): void',
}

/** The reader's names a snippet uses without declaring them itself. */
function readerNames(snippet: string): string {
  const declared = (name: string) => new RegExp(`(const|let|function)\\s+(\\{[^}]*\\b${name}\\b|${name}\\b)`).test(snippet)
  return Object.entries(READER_NAMES)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(snippet) && !declared(name))
    .map(([, declaration]) => declaration)
    .join('\n')
}

function source(specifier: string): string {
  return relative(DIR, join(ROOT, PACKAGE_PATHS[specifier]!)).replace(/^(?!\.)/, './')
}

/** The ```ts blocks between `## A bot` and the next top-level section after "Durable message processing". */
function coreSnippets(): string[] {
  const start = README.indexOf('\n## A bot\n')
  const end = README.indexOf('\n## ', README.indexOf('\n## Durable message processing\n') + 1)
  const section = README.slice(start, end)
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!)
}

/** A snippet as a module of its own: package paths made source paths, a fragment given its context. */
function asModule(snippet: string): string {
  const imported = snippet.replace(/from '(botmesh[^']*)'/g, (_, specifier: string) => `from '${source(specifier)}'`)
  const core = /^import /m.test(snippet) ? '' : `import { IMAGE, loadMediaOf, MediaUnavailableError } from '${source('botmesh/core')}'\n`
  return `${core}${imported}\n${readerNames(snippet)}\nexport {}\n`
}

describe("the README's core snippets", () => {
  const snippets = coreSnippets()

  it('are there (A bot, enqueue, operating, Prometheus, media on replay)', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(5)
    expect(snippets[0]).toContain('new Bot(')
  })

  it('type-check against the sources', () => {
    const files = snippets.map((snippet, index) => {
      const file = join(DIR, `snippet-${index}.ts`)
      writeFileSync(file, asModule(snippet))
      return file
    })
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts'],
      strict: true,
      skipLibCheck: true,
      esModuleInterop: true,
      types: ['node'],
      noEmit: true,
    })
    const problems = files.flatMap((file) =>
      [...program.getSemanticDiagnostics(program.getSourceFile(file)), ...program.getSyntacticDiagnostics(program.getSourceFile(file))].map(
        (d) => `${relative(ROOT, file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      ),
    )
    expect(problems).toEqual([])
  }, 120_000)

  it('"A bot" runs on a MockProvider: "signup" starts the flow, other text is echoed', async () => {
    const [snippet] = snippets
    // The bot up to "… later", on a journal in the temp folder, with a MockProvider for `provider`.
    const body = snippet!.slice(0, snippet!.indexOf('// … later')).replace("'./data/bot.db'", JSON.stringify(join(DIR, 'bot.db')))
    const file = join(DIR, 'a-bot.ts')
    const module = asModule(body).replace(READER_NAMES.provider!, '')
    writeFileSync(
      file,
      `import { MockProvider } from '${source('botmesh/core/testing')}'\nconst provider = new MockProvider()\n${module}\nexport { bot, provider }\n`,
    )
    const { bot, provider } = (await import(file)) as {
      bot: { stop(): Promise<void>; idle(): Promise<void> }
      provider: import('../../src/core/testing/index.js').MockProvider
    }
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
})
