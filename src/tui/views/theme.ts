/**
 * Colour, or none. Chalk (under Ink) ignores NO_COLOR, so the dashboard decides here and its
 * components ask the theme for every colour: with NO_COLOR set (to anything but an empty string)
 * they pass none, and the selection and warnings are still told apart by markers (›, !, ✖) and
 * weight, never by colour alone.
 */

/** The colours the components ask for, by meaning. */
export type Tone = 'title' | 'focus' | 'muted' | 'ok' | 'warn' | 'error' | 'accent'

export interface Theme {
  readonly color: boolean
  /** The colour of a tone, or undefined when colour is off. */
  tone(tone: Tone): string | undefined
}

const COLOURS: Record<Tone, string> = {
  title: 'cyan',
  focus: 'cyanBright',
  muted: 'gray',
  ok: 'green',
  warn: 'yellow',
  error: 'red',
  accent: 'magenta',
}

/** The theme for an environment: no colour when NO_COLOR is set and not empty (https://no-color.org). */
export function themeFor(env: NodeJS.ProcessEnv): Theme {
  const color = env.NO_COLOR === undefined || env.NO_COLOR === ''
  return { color, tone: (tone) => (color ? COLOURS[tone] : undefined) }
}
