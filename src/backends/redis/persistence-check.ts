/**
 * What Redis's persistence settings (`appendonly`, `appendfsync`, `save`) mean for the journal,
 * as a `PersistenceFinding` (common/persistence.ts judges and words it):
 *
 * - no AOF and no snapshots: nothing reaches the disk, a restart loses the whole journal;
 * - snapshots only: a crash loses every write since the last snapshot (up to its interval);
 * - AOF with `appendfsync everysec` (or `no`): only a crash of the machine loses the last second
 *   (or what the OS had not flushed, about 30 s); a crash of Redis alone loses nothing written;
 * - AOF with `appendfsync always`: every acknowledged write is on disk.
 *
 * In a Cluster every master is judged and the worst finding is reported, naming its nodes.
 */
import type { PersistenceFinding } from '../common/persistence.js'
import type { NodeSettings } from './server-settings.js'

/** What to set instead, in every warning. */
const FIX = 'Turn on AOF with appendfsync always (CONFIG SET appendonly yes, CONFIG SET appendfsync always, and in redis.conf)'

/** Findings by how much they lose, least first: a Cluster reports its worst. */
const RANK = ['durable', 'redis-aof-everysec', 'redis-aof-no', 'unreadable', 'redis-snapshots-only', 'redis-no-persistence']

/** The finding of one server, or the worst of a Cluster's masters. */
export function redisPersistence(nodes: readonly NodeSettings[], clustered: boolean): PersistenceFinding {
  const judged = nodes.map((node) => ({ node, finding: judgeNode(node) }))
  const worst = judged.reduce((a, b) => (RANK.indexOf(idOf(b.finding)) > RANK.indexOf(idOf(a.finding)) ? b : a)).finding
  if (!clustered || worst.level === 'durable' || worst.level === 'unreadable') return worst
  const where = judged.filter(({ finding }) => idOf(finding) === idOf(worst)).map(({ node }) => node.address)
  return { ...worst, settings: `${worst.settings} on ${where.join(', ')}` }
}

function judgeNode({ settings }: NodeSettings): PersistenceFinding {
  if (settings === undefined)
    return {
      level: 'unreadable',
      settings: 'appendonly, appendfsync and save',
      why: 'CONFIG GET is not allowed there',
      check: 'it runs with appendonly yes and appendfsync always, or a restart may lose journal records',
    }
  const { appendonly, appendfsync, save } = settings
  if (appendonly === 'yes') {
    if (appendfsync === 'always') return { level: 'durable' }
    if (appendfsync === 'no')
      return {
        level: 'window',
        id: 'redis-aof-no',
        settings: 'appendfsync is "no"',
        loses:
          'a crash of the machine (not of Redis alone) can lose the journal writes the OS had not flushed yet, about the last 30 seconds',
      }
    return {
      level: 'window',
      id: 'redis-aof-everysec',
      settings: `appendfsync is "${appendfsync}"`,
      loses: 'a crash of the machine (not of Redis alone) can lose the journal writes of the last second',
    }
  }
  const intervals = snapshotIntervals(save)
  if (intervals.length === 0)
    return {
      level: 'volatile',
      id: 'redis-no-persistence',
      settings: `appendonly is "${appendonly}" and save is "${save}"`,
      loses: 'nothing is written to disk, so a restart of Redis loses the whole journal (unfinished messages, unsent replies)',
      fix: FIX,
    }
  const [shortest, longest] = [Math.min(...intervals), Math.max(...intervals)]
  const every = shortest === longest ? `every ${shortest} s` : `every ${shortest} to ${longest} s, by the number of writes`
  return {
    level: 'volatile',
    id: 'redis-snapshots-only',
    settings: `appendonly is "${appendonly}", only snapshots are taken (save "${save}": one ${every})`,
    loses: 'a crash or restart of Redis loses every journal write since the last snapshot',
    fix: FIX,
  }
}

/** The seconds of each `save <seconds> <changes>` pair. */
function snapshotIntervals(save: string): number[] {
  const words = save.trim().split(/\s+/).filter(Boolean)
  const seconds: number[] = []
  for (let n = 0; n + 1 < words.length; n += 2) if (Number(words[n]) > 0) seconds.push(Number(words[n]))
  return seconds
}

function idOf(finding: PersistenceFinding): string {
  return finding.level === 'durable' || finding.level === 'unreadable' ? finding.level : finding.id
}
