/** The terminal's size, following resizes (80×24 where the stream does not say). */
import { useEffect, useState } from 'react'
import { useStdout } from 'ink'

export interface TerminalSize {
  columns: number
  rows: number
}

/** The fallback of a stream without a size (a pipe, a test stream). */
export const DEFAULT_SIZE: TerminalSize = { columns: 80, rows: 24 }

export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout()
  const [size, setSize] = useState<TerminalSize>(() => sizeOf(stdout))
  useEffect(() => {
    const resized = () => setSize(sizeOf(stdout))
    stdout.on('resize', resized)
    resized()
    return () => {
      stdout.off('resize', resized)
    }
  }, [stdout])
  return size
}

function sizeOf(stdout: NodeJS.WriteStream): TerminalSize {
  return { columns: stdout.columns || DEFAULT_SIZE.columns, rows: stdout.rows || DEFAULT_SIZE.rows }
}
