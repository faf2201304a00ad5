/**
 * The terminal's size, following resizes (80×24 where the stream does not say).
 *
 * Its listener goes before Ink's own: Ink redraws on a resize with the tree it has, and a redraw
 * of the old layout (taller, wider) written after the new one would stay on the screen. With
 * `clearOnResize` (a full-screen view on a real terminal) the screen is cleared first, so the new
 * layout is drawn from the top whatever the terminal did with the old one.
 */
import { useEffect, useState } from 'react'
import { useStdout } from 'ink'

export interface TerminalSize {
  columns: number
  rows: number
}

/** The fallback of a stream without a size (a pipe, a test stream). */
export const DEFAULT_SIZE: TerminalSize = { columns: 80, rows: 24 }

const CLEAR_SCREEN = '\x1b[2J\x1b[H'

export function useTerminalSize(options: { clearOnResize?: boolean } = {}): TerminalSize {
  const { stdout } = useStdout()
  const [size, setSize] = useState<TerminalSize>(() => sizeOf(stdout))
  const clear = options.clearOnResize === true
  useEffect(() => {
    const resized = () => {
      if (clear) stdout.write(CLEAR_SCREEN)
      setSize(sizeOf(stdout))
    }
    stdout.prependListener('resize', resized)
    setSize(sizeOf(stdout))
    return () => {
      stdout.off('resize', resized)
    }
  }, [stdout, clear])
  return size
}

function sizeOf(stdout: NodeJS.WriteStream): TerminalSize {
  return { columns: stdout.columns || DEFAULT_SIZE.columns, rows: stdout.rows || DEFAULT_SIZE.rows }
}
