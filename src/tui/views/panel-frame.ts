/** What every panel's view is given besides its own rows: where it sits, its selection, its size, the clock. */
import type { RowState } from '../state/selection.js'
import type { Theme } from './theme.js'

export interface PanelFrame {
  /** Its number on the screen (the digit key that focuses it). */
  number: number
  /** Set while nothing was read: why the figures are unknown (shown instead of an empty list). */
  unknown?: string | undefined
  /** The panel's title (its entry in the panel table). */
  title: string
  row: RowState
  focused: boolean
  /** Lines, the title included. */
  height: number
  width: number
  /** The backend's clock now (estimated between refreshes), for ages and countdowns. */
  now: number
  theme: Theme
}
