/** Every key of the dashboard and what it does: the help screen shows it (scrolled by its entries), and docs/dashboard.md. */
import { PANELS } from './panels.js'

export const KEY_HELP: readonly (readonly [keys: string, what: string])[] = [
  [`tab / shift-tab, ← →, 1-${PANELS.length}`, 'move between panels'],
  ['↑ ↓ (j k), home end (g G)', 'move between rows'],
  ['pgdn pgup (] [)', 'next / previous page of a dead-letter panel'],
  ['enter', "open the selected record's detail (esc closes)"],
  ['r', 'replay the selected inbound record / retry the selected send'],
  ['R', 'replay / retry every record of the panel (the matching ones when filtered)'],
  ['x', 'discard the selected send'],
  ['X', 'discard every send of the panel (the matching ones when filtered)'],
  ['/', 'filter every list by text (id, chat, error, owner, and what a message or send says); esc clears it'],
  ['p or space', 'pause / resume the screen (the bot keeps running)'],
  ['s', 'switch scope'],
  ['e', 'dead letters grouped by error: count, first/last seen, the command for the group'],
  ['w', 'the retry queue: failed records, when each is tried next; failures per minute'],
  ['?', 'this help'],
  ['q, ctrl-c', 'quit'],
]
