/** The human view of dead letters grouped by error. */
import type { Block } from '../output.js'
import { table } from '../output.js'
import type { ErrorGroup, ErrorGroups } from '../../operator/error-groups.js'
import { ago } from './format.js'

/**
 * One row per group, largest first, with what to type next. What an operator passes to the next
 * command (the group, the code) is never cut: on a narrow terminal the message shape and the
 * dates give way first.
 */
export function errorGroupsView(now: number, withKind: boolean) {
  return (found: ErrorGroups): Block[] => {
    const blocks: Block[] = [
      table(
        [
          { header: 'group', value: (g: ErrorGroup) => g.group, whole: true, priority: 4 },
          ...(withKind ? [{ header: 'kind', value: (g: ErrorGroup) => g.kind, priority: 3 }] : []),
          { header: 'count', value: (g) => g.count, align: 'right', tone: () => 'red', priority: 4 },
          { header: 'code', value: (g) => g.code ?? '-', whole: true, priority: 4 },
          { header: 'message shape', value: (g) => g.shape, maxWidth: 50, minWidth: 16, priority: 2 },
          { header: 'first seen', value: (g) => ago(g.firstSeenAt, now) },
          { header: 'last seen', value: (g) => ago(g.lastSeenAt, now), priority: 1 },
          { header: 'sample', value: (g) => g.sample.id, maxWidth: 32, priority: 1 },
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
      blocks.push({ text: 'next:', tone: 'dim' })
      blocks.push({ command: `botmesh show ${top.sample.id}`, indent: 2 })
      blocks.push({ command: `botmesh ${verb} --all-dead ${by} --dry-run`, indent: 2 })
    }
    return blocks
  }
}
