/**
 * The terminal around the dashboard: it draws on the alternate screen, so quitting (q, Ctrl-C, a
 * signal, an error) gives the operator back the screen and scrollback they had. Ink restores raw
 * mode and the cursor on unmount; this restores the screen, also from a process 'exit' handler in
 * case the process ends before the dashboard's own cleanup runs.
 */
const ENTER = '\x1b[?1049h\x1b[H'
const LEAVE = '\x1b[?25h\x1b[?1049l'

/** Switches `stdout` to the alternate screen; the returned function switches back (idempotent). */
export function enterAlternateScreen(stdout: NodeJS.WriteStream): () => void {
  if (!stdout.isTTY) return () => {}
  let restored = false
  const restore = () => {
    if (restored) return
    restored = true
    process.off('exit', restore)
    stdout.write(LEAVE)
  }
  process.on('exit', restore)
  stdout.write(ENTER)
  return restore
}
