/** The human view of dead letters grouped by error. */
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { ErrorGroup, ErrorGroups } from '../services/error-groups.js'
import { ago } from './format.js'

/** One row per group, largest first, with what to type next. */
export function errorGroupsView(now: number, withKind: boolean) {
  return (found: ErrorGroups): Block[] => {
    const blocks: Block[] = [
      table(
        [
          { header: 'group', value: (g: ErrorGroup) => g.group },
          ...(withKind ? [{ header: 'kind', value: (g: ErrorGroup) => g.kind }] : []),
          { header: 'count', value: (g) => g.count, align: 'right', tone: () => 'red' },
          { header: 'code', value: (g) => g.code ?? '-' },
          { header: 'message shape', value: (g) => g.shape, maxWidth: 50 },
          { header: 'first seen', value: (g) => ago(g.firstSeenAt, now) },
          { header: 'last seen', value: (g) => ago(g.lastSeenAt, now) },
          { header: 'sample', value: (g) => g.sample.id, maxWidth: 32 },
        ],
        found.groups,
        '(no dead letters)',
      ),
    ]
    if (found.scanLimited)
      blocks.push({ text: `grouped the first ${found.scanned} dead letters only; narrow with --since or --kind`, tone: 'dim' })
    const top = found.groups[0]
    if (top) {
      const verb = top.kind === 'inbox' ? 'replay' : 'retry'
      const by = top.code ? `--error-code ${top.code}` : `--error-group ${top.group}`
      blocks.push({ text: `next: botmesh show ${top.sample.id}; botmesh ${verb} --all-dead ${by} --dry-run`, tone: 'dim' })
    }
    return blocks
  }
}
