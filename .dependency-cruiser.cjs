/**
 * The house rules of docs/architecture.md ("What may import what"), checked on every CI run by
 * `npm run check:architecture`. A rule names the arrow it forbids; the architecture doc says why.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved without the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-no-outer-part',
      comment:
        'src/core is the runtime and its engine: it knows the backend SPI and the provider contract, never a backend, a provider, the testing kit, the operator library, the CLI or the dashboard. The one exception is spi.ts, the botmesh/core/spi entry: the conformance suite is part of the backend contract, and it lives in the testing kit.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: '^src/core/spi\\.ts$' },
      to: {
        path: [
          '^src/(backends|events|crash-safe-file|providers|operator|testing|cli|tui|demo|prometheus|telemetry)/',
          '^src/(index|telegram)\\.ts$',
        ],
      },
    },
    {
      name: 'spi-reaches-the-kit-for-conformance-only',
      comment: 'The SPI entry (src/core/spi.ts) re-exports the conformance suite from the testing kit, and nothing else outside the core.',
      severity: 'error',
      from: { path: '^src/core/spi\\.ts$' },
      to: {
        path: '^src/(backends|events|crash-safe-file|providers|operator|testing|cli|tui|demo|prometheus|telemetry)/',
        pathNot: '^src/testing/conformance/',
      },
    },
    {
      name: 'crash-safe-file-is-a-library',
      comment:
        'src/crash-safe-file is the crash-safe file machinery (append log, snapshots, locks, recovery) the file backend and the events library both build on: of the rest it sees only the errors and the key-value contract of the core.',
      severity: 'error',
      from: { path: '^src/crash-safe-file/' },
      to: { path: '^src/', pathNot: ['^src/crash-safe-file/', '^src/core/(errors/errors|spi|backend-internals)\\.ts$'] },
    },
    {
      name: 'events-library-imports-no-bot',
      comment:
        'src/events is the event-journal library an app uses without a bot: it shares the file machinery (src/crash-safe-file) and leaf helpers of the core (errors, option checks, the key-value contract and state, backoff, background loops, the rule of charged runs), never the engine, the runtime, a backend or a provider. src/backends/events adapts it to the bot.',
      severity: 'error',
      from: { path: '^src/events/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/events/',
          '^src/crash-safe-file/',
          '^src/core/(errors/errors|options/options)\\.ts$',
          '^src/core/durability/(journal/kv|backoff|loop|leases/charged-runs|memory/kv-state)\\.ts$',
        ],
      },
    },
    {
      name: 'engine-imports-errors-and-provider-types-only',
      comment:
        'The engine (src/core/durability) is written against the SPI; of the runtime it sees only errors, provider types and the two leaf helpers (durations, option checks).',
      severity: 'error',
      from: { path: '^src/core/durability/' },
      to: {
        path: '^src/core/',
        pathNot: [
          '^src/core/durability/',
          '^src/core/(errors/errors|provider/provider|provider/provider-errors|options/duration|options/options)\\.ts$',
        ],
      },
    },
    {
      name: 'runtime-reaches-engine-through-its-port',
      comment:
        'The runtime (src/core/pipeline) talks to the engine through one port (durability/port.ts, made by engine-choice.ts: message-engine.ts or the steps engine); of the rest it uses only leaf helpers shared with the plain pipeline.',
      severity: 'error',
      from: { path: '^src/core/pipeline/' },
      to: {
        path: '^src/core/durability/',
        pathNot: '^src/core/durability/(port|engine-choice|limits|outbox/split|journal/kv|turns/chat-queue|admission/in-flight)\\.ts$',
      },
    },
    {
      name: 'backend-imports-spi-only',
      comment:
        'A backend folder holds what is specific to its store: it reaches the core through the SPI (src/core/spi.ts), the internals the first-party backends share (src/core/backend-internals.ts), the shared errors and the driver loader only; a first-party store that speaks the steps natively also reaches their contract and rules (src/core/durability/steps/, and the rule of charged runs they cite), which stay off the public SPI.',
      severity: 'error',
      from: { path: '^src/backends/[^/]+/' },
      to: {
        path: '^src/core/',
        pathNot: [
          '^src/core/(spi|backend-internals|errors/errors|platform/driver)\\.ts$',
          '^src/core/durability/steps/',
          '^src/core/durability/leases/charged-runs\\.ts$',
        ],
      },
    },
    {
      name: 'backend-internals-stay-first-party',
      comment:
        'src/core/backend-internals.ts is what the first-party backends and the file library share with the engine beyond the public SPI; no package export leads to it, so the channels, the CLI, the dashboard and the public SPI itself never import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/backends/', '^src/crash-safe-file/'] },
      to: { path: '^src/core/backend-internals\\.ts$' },
    },
    {
      name: 'backend-imports-no-other-backend',
      comment:
        'Backends share machinery through src/crash-safe-file (append log, snapshots, locks) and src/backends/common only, never each other.',
      severity: 'error',
      from: { path: '^src/backends/([^/]+)/' },
      to: { path: '^src/backends/[^/]+/', pathNot: ['^src/backends/$1/', '^src/backends/common/'] },
    },
    {
      name: 'provider-imports-contract-only',
      comment: 'A provider folder implements the provider contract; it shares helpers through src/providers/shared only.',
      severity: 'error',
      from: { path: '^src/providers/([^/]+)/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/providers/$1/',
          '^src/providers/shared/',
          '^src/core/(provider/provider|provider/provider-errors|errors/errors|platform/driver)\\.ts$',
        ],
      },
    },
    {
      name: 'cli-commands-call-services',
      comment: 'A command parses arguments and calls the operator library (src/operator); only the library touches a backend.',
      severity: 'error',
      from: { path: '^src/cli/commands/' },
      to: { path: '^src/backends/' },
    },
    {
      name: 'cli-opens-backends-through-the-gateway',
      comment:
        'The CLI and the operator library have one way into a backend: the gateway src/operator/gateway/ (open.ts opens any backend from a URL).',
      severity: 'error',
      from: { path: '^src/(cli|operator)/', pathNot: '^src/operator/gateway/' },
      to: { path: '^src/backends/' },
    },
    {
      name: 'src-never-imports-bench',
      comment: 'The package does not ship bench/ (peers, raw ceilings, the soak): nothing in src/ may need it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^bench/' },
    },
    {
      name: 'backends-know-no-operator',
      comment: 'The operator library opens the backends (src/operator/gateway/); no backend imports it, the CLI or the dashboard.',
      severity: 'error',
      from: { path: '^src/backends/' },
      to: { path: '^src/(operator|cli|tui)/' },
    },
    ...Object.entries({ postgres: 'pg', redis: 'ioredis', sqlite: 'better-sqlite3' }).map(([store, driver]) => ({
      name: `${driver}-inside-src-backends-${store}`,
      comment: `A store's driver is imported in its backend folder only (src/backends/${store}/): every other part reaches the store through the backend, so one folder knows the driver.`,
      severity: 'error',
      from: { pathNot: `^src/backends/${store}/` },
      to: { path: `^node_modules/${driver}/` },
    })),
    {
      name: 'dashboard-reads-the-operator-library',
      comment:
        'The dashboard renders state its hooks fetch through the operator library (src/operator); type-only imports of the record model are fine.',
      severity: 'error',
      from: { path: '^src/tui/' },
      to: { path: '^src/', pathNot: ['^src/tui/', '^src/operator/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'dashboard-imports-no-cli',
      comment: 'The dashboard reads through the operator library, never through the CLI, not even for a type.',
      severity: 'error',
      from: { path: '^src/tui/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'operator-library-imports-no-face',
      comment:
        'src/operator is the library the CLI and the dashboard both call (open a backend by URL, list, show, replay, retry, stats, export, verify, the dashboard data): it knows neither of them, so a third face needs neither.',
      severity: 'error',
      from: { path: '^src/operator/' },
      to: { path: '^src/(cli|tui)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The store drivers are kept in the graph (not followed) so the driver rules above can see them.
    includeOnly: ['^src/', '^node_modules/(pg|ioredis|better-sqlite3)/'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
}
