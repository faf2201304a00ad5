/**
 * What a stretch of work cost this process: CPU time, bytes allocated on the JavaScript heap, and
 * time in garbage collection. `bench` reads it around each timed run and divides by the messages.
 *
 * CPU is `process.cpuUsage()`, user + system, of every thread of the process: it holds the store's
 * own work where the store runs in the process (SQLite, the file journal) and not a server's
 * (Redis, PostgreSQL). V8 keeps no running total of the bytes it allocated, so allocation is the
 * heap's growth over the run plus what each collection freed; a GC profiler sees each collection
 * (a few microseconds each, a few hundred collections a second at most) and gives its pause too.
 * The figure is an estimate: memory an old-space sweep frees between collections is not counted.
 */
import { GCProfiler, getHeapStatistics } from 'node:v8'

/** A stretch of work's cost, in total. */
export interface WorkCost {
  /** User + system CPU time, microseconds. */
  cpuMicros: number
  /** Bytes allocated on the JavaScript heap (estimate: growth plus what collections freed). */
  allocatedBytes: number
  /** Time the collections paused the process, microseconds. */
  gcMicros: number
  collections: number
}

/** One collection as the GC profiler saw it: used heap bytes before and after, and its pause. */
export interface Collection {
  usedBefore: number
  usedAfter: number
  costMicros: number
}

/** A meter running since `startWorkMeter()`; `stop()` gives what the work in between cost. */
export interface WorkMeter {
  stop(): WorkCost
}

/** Starts measuring now. */
export function startWorkMeter(): WorkMeter {
  const profiler = new GCProfiler()
  profiler.start()
  const usedAtStart = getHeapStatistics().used_heap_size
  const cpuAtStart = process.cpuUsage()
  return {
    stop() {
      const cpu = process.cpuUsage(cpuAtStart)
      const usedAtEnd = getHeapStatistics().used_heap_size
      const collections: Collection[] = profiler.stop().statistics.map((gc) => ({
        usedBefore: gc.beforeGC.heapStatistics.usedHeapSize,
        usedAfter: gc.afterGC.heapStatistics.usedHeapSize,
        costMicros: gc.cost,
      }))
      return workCostOf({ cpuMicros: cpu.user + cpu.system, usedAtStart, usedAtEnd, collections })
    },
  }
}

/** The cost of a stretch of work from its readings: CPU, the used heap at both ends, each collection. */
export function workCostOf(readings: {
  cpuMicros: number
  usedAtStart: number
  usedAtEnd: number
  collections: readonly Collection[]
}): WorkCost {
  const { cpuMicros, usedAtStart, usedAtEnd, collections } = readings
  const freed = collections.reduce((sum, gc) => sum + Math.max(0, gc.usedBefore - gc.usedAfter), 0)
  return {
    cpuMicros,
    allocatedBytes: Math.max(0, usedAtEnd - usedAtStart + freed),
    gcMicros: collections.reduce((sum, gc) => sum + gc.costMicros, 0),
    collections: collections.length,
  }
}
