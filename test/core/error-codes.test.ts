/**
 * The error-code registry (src/core/errors/error-codes.ts): each code keeps its string, the errors carry
 * them, no code is spelled inline in src/, and the CLI's exit-code table covers every code and agrees
 * with docs/cli-json.md.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ERROR_EXIT_CODES, EXIT_CODES, exitCodeOf } from '../../src/cli/exit-codes.js'
import { ReportedFailure } from '../../src/cli/errors.js'
import { ScopeRequiredError, UsageError } from '../../src/operator/errors.js'
import * as entry from '../../src/index.js'
import {
  AppendLogCorruptError,
  BackendUrlError,
  BotmeshError,
  ConfigError,
  DriverMissingError,
  ERROR_CODES,
  InvalidStateError,
  isErrorCode,
  JournalClosedError,
  JournalCorruptError,
  JournalLockedError,
  JournalMissingError,
  JournalReadOnlyError,
  JournalUnavailableError,
  LeaseLostError,
  PayloadNotJournaledError,
  RecordNotFoundError,
  RedisCommandError,
  SendDeadError,
  SendDeferredError,
  StoreUnavailableError,
  UnknownOptionError,
} from '../../src/core/errors/errors.js'
import {
  MediaUnavailableError,
  OutsideSessionWindowError,
  PayloadTooLargeError,
  ProviderError,
  ProviderNotLeaderError,
  RateLimitedError,
  RecipientUnreachableError,
  UnsupportedContentError,
} from '../../src/core/provider/provider-errors.js'

const ROOT = join(import.meta.dirname, '..', '..')
const CODES: ReadonlySet<string> = new Set(Object.values(ERROR_CODES))

/** Files the inline-code scan skips: the registry itself. */
const NOT_SCANNED = new Set(['src/core/errors/error-codes.ts'])

/** A string written like a code: upper case words joined by underscores (`USAGE`, `SEND_DEAD`). */
const CODE_LIKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/

describe('the error-code registry', () => {
  it('names each code by its own string, once', () => {
    for (const [key, value] of Object.entries(ERROR_CODES)) expect(value).toBe(key)
    expect(CODES.size).toBe(Object.keys(ERROR_CODES).length)
    expect(isErrorCode('JOURNAL_UNAVAILABLE')).toBe(true)
    expect(isErrorCode('DOWN')).toBe(false)
    expect(isErrorCode(undefined)).toBe(false)
  })

  it('is exported by the package entry', () => {
    expect(entry.ERROR_CODES).toBe(ERROR_CODES)
    expect(entry.isErrorCode).toBe(isErrorCode)
  })

  it('keeps the code string of every error class (the contract and the docs name them)', () => {
    const codes: [BotmeshError<string>, string][] = [
      [new ConfigError('x'), 'CONFIG_INVALID'],
      [new UnknownOptionError('o', ['x'], 'x'), 'CONFIG_INVALID'],
      [new LeaseLostError('inbox', 'i', 1), 'LEASE_LOST'],
      [new JournalUnavailableError('x'), 'JOURNAL_UNAVAILABLE'],
      [new StoreUnavailableError('x'), 'STORE_UNAVAILABLE'],
      [new SendDeferredError('k'), 'SEND_DEFERRED'],
      [new SendDeadError('k', 'x'), 'SEND_DEAD'],
      [new PayloadNotJournaledError('k', 'x'), 'PAYLOAD_NOT_JOURNALED'],
      [new RecordNotFoundError('inbox', 'i'), 'RECORD_NOT_FOUND'],
      [new InvalidStateError('inbox', 'i', 'done', ['dead']), 'INVALID_STATE'],
      [new JournalCorruptError('f', 'x'), 'JOURNAL_CORRUPT'],
      [new AppendLogCorruptError('f', 1, 0, 'x'), 'APPEND_LOG_CORRUPT'],
      [new JournalLockedError('f', 1), 'JOURNAL_LOCKED'],
      [new JournalClosedError('f'), 'JOURNAL_CLOSED'],
      [new JournalReadOnlyError('f'), 'JOURNAL_READ_ONLY'],
      [new JournalMissingError('f', 'x'), 'JOURNAL_MISSING'],
      [new DriverMissingError('pg', 'x'), 'DRIVER_MISSING'],
      [new RedisCommandError('x', 'y'), 'REDIS_COMMAND_FAILED'],
      [new BackendUrlError('x'), 'BACKEND_URL_INVALID'],
      [new BackendUrlError('x', ERROR_CODES.BACKEND_SCHEME_UNKNOWN), 'BACKEND_SCHEME_UNKNOWN'],
      [new RateLimitedError(5), 'RATE_LIMITED'],
      [new UnsupportedContentError(), 'UNSUPPORTED_CONTENT'],
      [new PayloadTooLargeError(), 'PAYLOAD_TOO_LARGE'],
      [new OutsideSessionWindowError(), 'OUTSIDE_SESSION_WINDOW'],
      [new RecipientUnreachableError(), 'RECIPIENT_UNREACHABLE'],
      [new ProviderNotLeaderError(), 'PROVIDER_NOT_LEADER'],
      [new MediaUnavailableError('not-durable', 'x'), 'MEDIA_UNAVAILABLE'],
      [new UsageError('x'), 'USAGE'],
      [new ScopeRequiredError(['a'], 'x'), 'SCOPE_REQUIRED'],
      [new ReportedFailure('x'), 'CHECK_FAILED'],
    ]
    for (const [error, code] of codes) {
      expect(error.code, error.name).toBe(code)
      expect(CODES.has(code), code).toBe(true)
    }
  })

  it('takes a code of its own only when the caller names its type', () => {
    expect(new BotmeshError<'MY_CODE'>('MY_CODE', 'x').code).toBe('MY_CODE')
    // @ts-expect-error: a BotmeshError's code is one of ERROR_CODES unless the type argument says otherwise
    expect(new BotmeshError('MY_CODE', 'x').code).toBe('MY_CODE')
    expect(new BotmeshError(ERROR_CODES.SEND_DEAD, 'x').code).toBe('SEND_DEAD')
  })

  it('leaves a provider error its channel code', () => {
    const error = new ProviderError('DOWN', 'down')
    expect(error.code).toBe('DOWN')
    expect(error.code === 'DOWN').toBe(true)
    expect(error.retryable).toBe(true)
  })
})

describe('no error code is spelled inline in src/', () => {
  const files = sourceFiles('src').filter((file) => !NOT_SCANNED.has(file))

  it('finds no string literal equal to a registry value outside the registry', () => {
    const found = files.flatMap((file) => stringLiterals(file).filter(({ text }) => CODES.has(text)))
    expect(found.map(({ where, text }) => `${where} '${text}' (write ERROR_CODES.${text})`)).toEqual([])
  })

  it('finds no unregistered code given to an error constructor', () => {
    const isInlineCode = ({ text, node }: Literal) => CODE_LIKE.test(text) && isErrorConstructorArgument(node)
    const found = files.flatMap((file) => stringLiterals(file).filter(isInlineCode))
    expect(found.map(({ where, text }) => `${where} '${text}' (add it to ERROR_CODES)`)).toEqual([])
  })

  it('scans what it should (a hit in a scanned file is found)', () => {
    expect(files).toContain('src/core/errors/errors.ts')
    expect(files.length).toBeGreaterThan(100)
    const probe = ts.createSourceFile('probe.ts', "throw new BotmeshError('SEND_DEAD', 'x')", ts.ScriptTarget.Latest, true)
    expect(literalsOf(probe, 'probe.ts').map(({ text, node }) => [text, isErrorConstructorArgument(node)])).toEqual([
      ['SEND_DEAD', true],
      ['x', true],
    ])
  })
})

describe("the CLI's exit codes", () => {
  it('give every registry code an exit code, and nothing else', () => {
    expect(Object.keys(ERROR_EXIT_CODES).sort()).toEqual([...CODES].sort())
  })

  it('are the ones docs/cli-json.md lists', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'cli-json.md'), 'utf8')
    const row = (exit: number) => {
      const line = docs.match(new RegExp(`^\\| ${exit} \\|.*$`, 'm'))?.[0] ?? ''
      return [...line.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]).sort()
    }
    const withExit = (exit: number) =>
      Object.entries(ERROR_EXIT_CODES)
        .filter(([, code]) => code === exit)
        .map(([name]) => name)
    expect(row(EXIT_CODES.badInput)).toEqual(withExit(EXIT_CODES.badInput).sort())
    for (const code of row(EXIT_CODES.failed)) expect(ERROR_EXIT_CODES[code as keyof typeof ERROR_EXIT_CODES], code).toBe(EXIT_CODES.failed)
  })

  it('map an error by its code; a channel code or a foreign error fails with 1', () => {
    expect(exitCodeOf(new UsageError('x'))).toBe(EXIT_CODES.badInput)
    expect(exitCodeOf(new JournalLockedError('f', 1))).toBe(EXIT_CODES.badInput)
    expect(exitCodeOf(new ReportedFailure('x'))).toBe(EXIT_CODES.failed)
    expect(exitCodeOf(new ProviderError('USAGE_LIKE_BUT_NOT', 'x'))).toBe(EXIT_CODES.failed)
    expect(exitCodeOf(new ProviderError('DOWN', 'x'))).toBe(EXIT_CODES.failed)
    expect(exitCodeOf(Object.assign(new Error('x'), { code: 'USAGE' }))).toBe(EXIT_CODES.failed)
    expect(exitCodeOf('not an error')).toBe(EXIT_CODES.failed)
  })
})

interface Literal {
  text: string
  where: string
  node: ts.Node
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

const parsed = new Map<string, Literal[]>()

function stringLiterals(file: string): Literal[] {
  const known = parsed.get(file)
  if (known) return known
  const text = readFileSync(join(ROOT, file), 'utf8')
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const literals = literalsOf(ts.createSourceFile(relative(ROOT, join(ROOT, file)), text, ts.ScriptTarget.Latest, true, kind), file)
  parsed.set(file, literals)
  return literals
}

/** Every string literal of the file (comments are not literals, so a code named in a comment is fine). */
function literalsOf(source: ts.SourceFile, file: string): Literal[] {
  const found: Literal[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
      found.push({ text: node.text, where: `${file}:${line + 1}`, node })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Whether the literal is an argument of `super(…)` or of `new SomethingError(…)`. */
function isErrorConstructorArgument(node: ts.Node): boolean {
  const call = node.parent
  if (!call || !(ts.isCallExpression(call) || ts.isNewExpression(call)) || !call.arguments?.includes(node as ts.Expression)) return false
  if (ts.isCallExpression(call)) return call.expression.kind === ts.SyntaxKind.SuperKeyword
  return ts.isIdentifier(call.expression) && /Error$/.test(call.expression.text)
}
