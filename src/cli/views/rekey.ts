/** Human views of `botmesh rekey`: what it will rewrite, and what it did. */
import type { Block } from '../output.js'
import type { RekeySummary } from '../../operator/rekey.js'

/** Where the records to rewrite are now: "9000 under k1, 1000 in clear". */
function origins(summary: RekeySummary): string {
  return Object.entries(summary.from)
    .map(([from, count]) => `${count} ${from === 'clear' ? 'in clear' : `under ${from}`}`)
    .join(', ')
}

function leftAlone(summary: RekeySummary): Block[] {
  const altered: Block[] = summary.altered
    ? [
        {
          text: `${summary.altered} record(s) do not open under their key (altered, or moved to another scope or chat) and stay as they are: restore them from a backup`,
          tone: 'yellow',
        },
      ]
    : []
  if (summary.unreadable.count === 0) return altered
  const keys = summary.unreadable.keys.map((key) => `key ${key}`).join(', ')
  return [
    ...altered,
    {
      text: `${summary.unreadable.count} record(s) sealed under ${keys}, which the keys given do not open, stay as they are: add ${summary.unreadable.keys.length > 1 ? 'those keys' : 'that key'} to --keys to rewrite them`,
      tone: 'yellow',
    },
  ]
}

/** The plan: how many records are rewritten under which key, from where. */
export function rekeyPlanView(plan: RekeySummary): Block[] {
  return [
    {
      text: `rewrite ${plan.rewritten} of ${plan.scanned} record(s) under key ${plan.current} (${origins(plan)}); ${plan.unchanged} already under it`,
      tone: 'bold',
    },
    ...leftAlone(plan),
  ]
}

/** The outcome. */
export function rekeyView(summary: RekeySummary & { elapsedMs: number }): Block[] {
  if (summary.dryRun) return [{ text: 'dry run: nothing was rewritten', tone: 'dim' }, ...leftAlone(summary)]
  return [
    {
      text: `rewrote ${summary.rewritten} record(s) under key ${summary.current} in ${(summary.elapsedMs / 1000).toFixed(1)} s${summary.rewritten ? ` (${origins(summary)})` : ''}; ${summary.unchanged} already under it; ${summary.scanned} read in ${summary.scopes.length} scope(s)`,
      tone: summary.conflicts ? 'yellow' : 'green',
    },
    ...(summary.conflicts
      ? [{ text: `${summary.conflicts} record(s) changed twice while being rewritten: run rekey again`, tone: 'yellow' as const }]
      : []),
    ...leftAlone(summary),
  ]
}
