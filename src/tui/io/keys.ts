/**
 * Keys → events, by what has the keys: a confirmation, the filter line, the scope picker, a
 * detail, the help, or the panels. Pure (the key as Ink parsed it in, an event out), so every
 * binding is tested without a terminal. `KEY_HELP` is what the help bar and the help screen show.
 */
import type { Key } from 'ink'
import { PANELS } from '../state/panels.js'
export { KEY_HELP } from '../state/key-help.js'
import type { DashboardEvent, DashboardState } from '../state/reduce.js'

/** The event a key press makes in this state, or undefined when the key does nothing here. */
export function keyEvent(state: DashboardState, input: string, key: Key): DashboardEvent | undefined {
  if (key.ctrl && input === 'c') return { type: 'quit' }
  switch (state.overlay.type) {
    case 'confirm':
      // Letters are the reason (kept on each record), so only enter confirms and only esc cancels.
      if (key.return) return { type: 'confirm' }
      if (key.escape) return { type: 'cancel' }
      if (key.backspace || key.delete) return { type: 'reasonErase' }
      if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return undefined
      return input ? { type: 'reasonInput', text: input } : undefined
    case 'running':
      return key.escape ? { type: 'cancel' } : undefined
    case 'filter':
      if (key.return) return { type: 'filterApply' }
      if (key.escape) return { type: 'close' }
      if (key.backspace || key.delete) return { type: 'filterErase' }
      if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return undefined
      return input ? { type: 'filterInput', text: input } : undefined
    case 'report':
      if (input === 'e') return { type: 'report', report: 'errors' }
      if (input === 'w') return { type: 'report', report: 'retries' }
      if (key.escape || input === 'q' || key.return) return { type: 'close' }
      return movement(input, key)
    case 'help':
      // ↑ ↓ scroll it; any other key closes it, so q there closes it rather than quitting.
      return movement(input, key) ?? { type: 'close' }
    case 'scopes':
      if (input === 'q') return { type: 'quit' }
      if (key.escape) return { type: 'close' }
      if (key.return) return { type: 'chooseScope' }
      if (input === 'r') return { type: 'scopesOpen' }
      return movement(input, key)
    case 'detail':
      if (key.escape || key.return || input === 'q' || key.backspace || key.leftArrow) return { type: 'close' }
      if (input === 'r') return { type: 'act', intent: 'requeue', all: false }
      if (input === 'x') return { type: 'act', intent: 'discard', all: false }
      if (key.pageDown || input === ' ') return { type: 'moveRow', by: 10 }
      if (key.pageUp) return { type: 'moveRow', by: -10 }
      return movement(input, key)
    case 'none':
      return panelKey(input, key)
  }
}

function panelKey(input: string, key: Key): DashboardEvent | undefined {
  if (input === 'q') return { type: 'quit' }
  if (key.tab) return { type: key.shift ? 'focusPrev' : 'focusNext' }
  if (key.rightArrow || input === 'l') return { type: 'focusNext' }
  if (key.leftArrow || input === 'h') return { type: 'focusPrev' }
  if (/^[1-9]$/.test(input) && Number(input) <= PANELS.length) return { type: 'focus', panel: PANELS[Number(input) - 1]! }
  if (key.return) return { type: 'open' }
  if (key.pageDown || input === ']') return { type: 'pageNext' }
  if (key.pageUp || input === '[') return { type: 'pagePrev' }
  if (input === 'r' || input === 'R') return { type: 'act', intent: 'requeue', all: input === 'R' }
  if (input === 'x' || input === 'X') return { type: 'act', intent: 'discard', all: input === 'X' }
  if (input === '/') return { type: 'filterStart' }
  if (input === 'p' || input === ' ') return { type: 'togglePause' }
  if (input === 's') return { type: 'scopesOpen' }
  if (input === 'e') return { type: 'report', report: 'errors' }
  if (input === 'w') return { type: 'report', report: 'retries' }
  if (input === '?') return { type: 'help' }
  if (key.escape) return { type: 'dismiss' }
  return movement(input, key)
}

function movement(input: string, key: Key): DashboardEvent | undefined {
  if (key.upArrow || input === 'k') return { type: 'moveRow', by: -1 }
  if (key.downArrow || input === 'j') return { type: 'moveRow', by: 1 }
  if (key.home || input === 'g') return { type: 'moveRowTo', to: 'first' }
  if (key.end || input === 'G') return { type: 'moveRowTo', to: 'last' }
  return undefined
}

/** A key with no flag set (what Ink reports for a plain character). */
export function plainKey(flags: Partial<Key> = {}): Key {
  return {
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...flags,
  }
}

/**
 * Ink hands a run of plain characters that arrived together (keys typed fast, a paste, tmux
 * send-keys) to the handler as one input. Each character is a key here, so "4X" focuses panel 4
 * and then asks to discard all, and "/crm\r" opens the filter, types crm and applies it.
 */
export function splitKeys(input: string, key: Key): [string, Key][] {
  const characters = Array.from(input)
  if (characters.length <= 1 || key.ctrl || key.meta || input.includes('\x1b')) return [[input, key]]
  return characters.map((character): [string, Key] => {
    if (character === '\r' || character === '\n') return ['', plainKey({ return: true })]
    if (character === '\t') return ['', plainKey({ tab: true })]
    if (character === '\x7f' || character === '\b') return ['', plainKey({ backspace: true })]
    return [character, plainKey({ shift: /[A-Z]/.test(character) })]
  })
}
