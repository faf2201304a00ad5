/** `scopes`: the namespaces a backend holds, with how many records each keeps (from the index counts). */
import type { DurabilityBackend } from '../core/durability/journal/backend.js'

/** One scope and its totals. */
export interface ScopeSummary {
  scope: string
  /** `<tenantId>/<environmentId>/<botId>/<connectionId>`, split (undefined parts for an id of another shape). */
  botId: string | null
  inbox: number
  outbox: number
  dead: number
  instances: number
}

/** Every scope of the backend, sorted, with its totals. */
export async function listScopes(backend: DurabilityBackend): Promise<ScopeSummary[]> {
  const scopes = (await backend.scopes()).sort()
  return Promise.all(
    scopes.map(async (scope) => {
      const journal = backend.journal(scope)
      const [inbox, outbox, instances] = await Promise.all([journal.count('inbox'), journal.count('outbox'), journal.count('instances')])
      return {
        scope,
        botId: scope.split('/')[2] ?? null,
        inbox: sum(inbox),
        outbox: sum(outbox),
        dead: (inbox.dead ?? 0) + (outbox.dead ?? 0),
        instances: sum(instances),
      }
    }),
  )
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((total, n) => total + n, 0)
}
