/**
 * What each kind of backend can do beyond the durability contract, in one table, so that the CLI
 * and the dashboard ask the table instead of testing `kind` where they need it.
 */
import type { BackendKind, BackendTarget } from './backend-url.js'

/** How a backend reclaims the space its journal's history takes. */
export type Compaction =
  /** `botmesh compact` folds it (FileDurability's log into its snapshot, SQLite's WAL into the file). */
  | 'explicit'
  /** It compacts by itself (an events journal rewrites or folds its file). */
  | 'automatic'
  /** The server does (Redis memory, PostgreSQL autovacuum). */
  | 'server'
  /** Nothing to reclaim (in memory). */
  | 'none'

export interface BackendCapabilities {
  compaction: Compaction
  /** Verified by reading its file directly (damage by file, line and byte offset), not through a backend. */
  verifiedAsFile: boolean
  /** What is readable of a damaged journal can be salvaged into a new file. */
  salvage: boolean
  /** Only one process may hold it at a time: a reader opens it per use, read-only while a bot holds it. */
  oneProcessAtATime: boolean
  /** `botmesh demo` runs on it. */
  demo: boolean
}

export const BACKEND_CAPABILITIES: Record<BackendKind, BackendCapabilities> = {
  memory: { compaction: 'none', verifiedAsFile: false, salvage: false, oneProcessAtATime: false, demo: false },
  file: { compaction: 'explicit', verifiedAsFile: true, salvage: true, oneProcessAtATime: true, demo: false },
  sqlite: { compaction: 'explicit', verifiedAsFile: true, salvage: false, oneProcessAtATime: false, demo: true },
  redis: { compaction: 'server', verifiedAsFile: false, salvage: false, oneProcessAtATime: false, demo: false },
  postgres: { compaction: 'server', verifiedAsFile: false, salvage: false, oneProcessAtATime: false, demo: false },
  events: { compaction: 'automatic', verifiedAsFile: false, salvage: false, oneProcessAtATime: false, demo: false },
}

/** What the journal a target names can do; a throwaway instance has no file of the operator's to verify, salvage, compact or demo on. */
export function capabilitiesOf(target: BackendTarget): BackendCapabilities {
  const capabilities = BACKEND_CAPABILITIES[target.kind]
  if (!target.throwaway) return capabilities
  return {
    ...capabilities,
    compaction: capabilities.compaction === 'explicit' ? 'none' : capabilities.compaction,
    verifiedAsFile: false,
    salvage: false,
    demo: false,
  }
}
