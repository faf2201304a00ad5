/**
 * TypeDoc's options for `npm run docs` (the API reference from the TSDoc): an undocumented export
 * or a broken link fails it. Source links come from package.json's `repository` field, never from
 * a git remote: a fork, a tarball or a fresh `git init` has no `origin`, and TypeDoc's warning about
 * it failed the run (warnings are errors here). Without the field the reference has no source links.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'))

/** The write names' lists: internal, their types public; named only where the tree defines them (a run on one module has none). */
const WRITE_LISTS = existsSync(new URL('./src/core/durability/journal/crash-points.ts', import.meta.url))
  ? ['OPERATOR_WRITES', 'COORDINATION_WRITES']
  : []

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints: [
    'src/index.ts',
    'src/telegram.ts',
    'src/core/spi.ts',
    'src/testing/index.ts',
    'src/backends/sqlite/index.ts',
    'src/backends/redis/index.ts',
    'src/backends/postgres/index.ts',
    'src/events/index.ts',
    'src/backends/events/durability.ts',
    'src/prometheus/index.ts',
    'src/telemetry/index.ts',
    'src/providers/index.ts',
    'src/providers/baileys/index.ts',
    'src/providers/meta/index.ts',
    'src/providers/telegram/index.ts',
    'src/providers/twilio/index.ts',
    'src/providers/messenger/index.ts',
    'src/providers/instagram/index.ts',
    'src/providers/discord/index.ts',
    'src/providers/evolution/index.ts',
    'src/providers/wppconnect/index.ts',
    'src/providers/gupshup/index.ts',
    'src/providers/gohighlevel/index.ts',
    'src/providers/email/index.ts',
    'src/providers/tiktok/index.ts',
  ],
  tsconfig: 'tsconfig.json',
  out: 'api-reference',
  name: 'botmesh',
  readme: 'none',
  excludePrivate: true,
  excludeProtected: false,
  excludeInternal: true,
  excludeExternals: true,
  treatWarningsAsErrors: true,
  // The write names' lists stay internal; their types (`OperatorWrite`, `CoordinationWrite`) are public.
  intentionallyNotExported: WRITE_LISTS,
  validation: {
    notExported: true,
    invalidLink: true,
    rewrittenLink: true,
    notDocumented: true,
    unusedMergeModuleWith: true,
  },
  requiredToBeDocumented: [
    'Enum',
    'EnumMember',
    'Variable',
    'Function',
    'Class',
    'Interface',
    'Method',
    'Accessor',
    'TypeAlias',
    'Property',
  ],
  ...sourceLinks(pkg, fileURLToPath(new URL('.', import.meta.url))),
}

/**
 * Links to the released version's sources (tag `v<version>`) on the repository's web page, without
 * asking git (`disableGit`), each path from `root` (the package's folder); none when the field names
 * no GitHub or GitLab repository.
 */
export function sourceLinks({ repository, version }, root) {
  const web = webUrl(typeof repository === 'string' ? repository : repository?.url)
  if (!web) return { disableSources: true }
  const directory = typeof repository === 'object' && repository.directory ? `${repository.directory.replace(/\/+$/, '')}/` : ''
  const blob = web.host === 'gitlab.com' ? '-/blob' : 'blob'
  return {
    // Without git, {path} is taken from displayBasePath, which is otherwise the entry points' common folder (src/).
    displayBasePath: root,
    disableGit: true,
    gitRevision: `v${version}`,
    sourceLinkTemplate: `https://${web.host}/${web.path}/${blob}/{gitRevision}/${directory}{path}#L{line}`,
  }
}

/** `owner/repo`, `github:owner/repo`, `gitlab:…`, `git+https://…`, `git@host:owner/repo.git` → host and path. */
function webUrl(spec) {
  if (typeof spec !== 'string') return undefined
  const shorthand = /^(?:(github|gitlab):)?([\w.-]+\/[\w.-]+)$/.exec(spec)
  if (shorthand) return { host: `${shorthand[1] ?? 'github'}.com`, path: shorthand[2].replace(/\.git$/, '') }
  const url =
    /^(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/(.+?)(?:\.git)?\/?$/.exec(spec) ??
    /^[^@/]+@([^:]+):(.+?)(?:\.git)?$/.exec(spec)
  if (!url || !['github.com', 'gitlab.com'].includes(url[1])) return undefined
  return { host: url[1], path: url[2] }
}
