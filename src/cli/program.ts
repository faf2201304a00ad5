/**
 * The commander program: global flags, every command, and the hook that resolves the run's
 * configuration before an action. Building it writes nothing and exits nothing (`main.ts` does).
 */
import { Command } from 'commander'
import type { Cli } from './context.js'
import { CONNECT_TIMEOUT_DEFAULT, DEFAULT_BACKEND, outputFormat, resolveCliConfig, type CliConfig, type GlobalFlags } from './config.js'
import { examples, helpList } from './options.js'
import type { Output } from './output.js'
import { registerBench } from './commands/bench.js'
import { registerCompact } from './commands/compact.js'
import { registerConformance } from './commands/conformance.js'
import { registerCrashMatrix } from './commands/crash-matrix.js'
import { registerDashboard } from './commands/dashboard.js'
import { registerDemo } from './commands/demo.js'
import { registerDiscard } from './commands/discard.js'
import { registerDlq } from './commands/dlq.js'
import { registerDoctor } from './commands/doctor.js'
import { registerExport } from './commands/export.js'
import { registerImport } from './commands/import.js'
import { registerInbox } from './commands/inbox.js'
import { registerInstances } from './commands/instances.js'
import { registerLeases } from './commands/leases.js'
import { registerList } from './commands/list.js'
import { registerOutbox } from './commands/outbox.js'
import { registerPurge } from './commands/purge.js'
import { registerRekey } from './commands/rekey.js'
import { registerReplay } from './commands/replay.js'
import { registerRetry } from './commands/retry.js'
import { registerScopes } from './commands/scopes.js'
import { registerShadow } from './commands/shadow.js'
import { registerShow } from './commands/show.js'
import { registerStats } from './commands/stats.js'
import { registerVerify } from './commands/verify.js'

/** Every command, in the order --help lists them: a new command joins here (docs/architecture.md, "Adding a CLI command"). */
export const COMMANDS: ((program: Command, cli: Cli) => void)[] = [
  registerScopes,
  registerStats,
  registerInbox,
  registerOutbox,
  registerDlq,
  registerList,
  registerShow,
  registerReplay,
  registerRetry,
  registerDiscard,
  registerPurge,
  registerLeases,
  registerInstances,
  registerVerify,
  registerDoctor,
  registerCompact,
  registerExport,
  registerImport,
  registerRekey,
  registerShadow,
  registerConformance,
  registerCrashMatrix,
  registerBench,
  registerDashboard,
  registerDemo,
]

/** What the program needs from its process. */
export interface ProgramIo {
  out: Output
  env: NodeJS.ProcessEnv
  stdin: NodeJS.ReadableStream
  signal: AbortSignal
  version: string
}

/** Builds the program; `extra` registers more commands (the lead's demo and dashboard). */
export function buildProgram(io: ProgramIo, extra: ((program: Command, cli: Cli) => void)[] = []): Command {
  let config: CliConfig | undefined
  const cli: Cli = {
    out: io.out,
    env: io.env,
    stdin: io.stdin,
    signal: io.signal,
    config: () => {
      if (!config) throw new Error('the configuration is resolved before an action runs (preAction hook)')
      return config
    },
  }
  const program = new Command('botmesh')
    .description('Operate botmesh journals (inbox, outbox, dead letters, leases) on any backend, from a terminal or a script.')
    .version(io.version, '-V, --version')
    .option('--backend <url>', `backend URL (env BOTMESH_BACKEND; default ${DEFAULT_BACKEND})`)
    .option('--scope <id>', 'work in this scope (tenantId/environmentId/botId/connectionId, as botmesh scopes lists them)')
    .option('--bot <botId>', "work in this bot's scope")
    .option(
      '-o, --output <format>',
      'table (the default: fits the terminal), json (one document; shapes: docs/cli-json.md) or jsonl (one JSON value a line); messages go to stderr',
    )
    .option('--json', 'the same as -o json')
    .option(
      '--connect-timeout <duration>',
      `give up opening a server backend after this long (env BOTMESH_CONNECT_TIMEOUT; default ${CONNECT_TIMEOUT_DEFAULT})`,
    )
    .option(
      '--keys <file>',
      'encryption keys to open sealed records with, as durability.encryption in JSON (env BOTMESH_ENCRYPTION_KEYS); the file must be readable by its owner only (chmod 600)',
    )
    .option(
      '--insecure-keys-file',
      'read a --keys file even when its group or others may read or write it (refused otherwise, as ssh does)',
    )
    .configureOutput(io.out.commanderOutput())
    .exitOverride()
    .showSuggestionAfterError()
    // Every command's --help lists the global options it takes (--backend, --scope, -o…).
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', examples(...ROOT_EXAMPLES))
    .addHelpText('after', BACKENDS_HELP)
  program.hook('preAction', (_program, action) => {
    const flags = withoutOwnedFlags(action, action.optsWithGlobals<GlobalFlags>())
    // A bad -o is reported as a human would read it; a bad backend URL already in the format asked for.
    io.out.configure({ format: flags.json === true ? 'json' : 'table' })
    io.out.configure({ format: outputFormat(flags) })
    config = resolveCliConfig(flags, io.env)
    io.out.configure({ format: config.format, secrets: config.secrets })
  })
  for (const register of [...COMMANDS, ...extra]) register(program, cli)
  return program
}

/**
 * The global flags with those the command declares for itself left out: `shadow --bot <module>`
 * names a module, not the scope (commander hands the value to the program wherever it stands).
 */
function withoutOwnedFlags(action: Command, flags: GlobalFlags): GlobalFlags {
  return action.options.some((option) => option.long === '--bot') ? { ...flags, bot: undefined } : flags
}

/** What an operator reaches for first. */
const ROOT_EXAMPLES = [
  'botmesh stats --backend postgres://postgres@db/bot --bot support',
  'botmesh dlq list --since 1h',
  'botmesh show <record id>',
  'botmesh replay --all-dead --error ETIMEDOUT --dry-run',
  'botmesh inbox list --state failed -o jsonl | jq .id',
  'botmesh show <record id> --keys keys.json   # keys.json: chmod 600',
]

const BACKENDS_HELP = `${helpList('Backend URLs', [
  ['sqlite:./data/bot.db, ./x.db', `SQLiteDurability on that file (the default: ${DEFAULT_BACKEND})`],
  ['file:./data/durable.json', 'FileDurability (and its .log); read-only while a bot holds it'],
  ['redis://[:pw@]host:port[/db]?prefix=P', 'RedisDurability; rediss:// for TLS'],
  ['redis+cluster://h1:p1,h2:p2?prefix=P', 'RedisDurability on a Redis Cluster'],
  ['redis+sentinel://s1:p1,s2:p2/<master>[/db]?prefix=P', 'RedisDurability on the primary Sentinel names'],
  ['postgres://user@host:port/db?tablePrefix=T', 'PostgresDurability (postgresql:// too)'],
  ['events:./data/events.json', 'eventsDurability over a locked FileEventJournal (read through a view while a bot holds it)'],
  ['events+shared:./data/events.json', 'eventsDurability over a SharedFileEventJournal'],
  ['memory | file | sqlite | redis | postgres | events | events-shared', 'a throwaway instance (conformance, crash-matrix, bench)'],
])}
Exit codes: 0 done, 1 failed, 2 bad usage or input (nothing was changed).
`
