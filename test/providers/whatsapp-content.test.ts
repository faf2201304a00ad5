/**
 * What Baileys and Evolution read alike from a WhatsApp Web message (`shared/whatsapp.ts`): the id
 * of the reply button, template button or list row pressed, and the text of a plain or extended
 * text message.
 */
import { describe, expect, it } from 'vitest'
import { pressedIdOf, textOf } from '../../src/providers/shared/whatsapp.js'

describe('a WhatsApp Web message read alike on Baileys and Evolution', () => {
  it('names the reply button, template button or list row pressed, in that order; a text message presses nothing', () => {
    expect(pressedIdOf({ buttonsResponseMessage: { selectedButtonId: 'yes' } })).toBe('yes')
    expect(pressedIdOf({ templateButtonReplyMessage: { selectedId: 'tpl' } })).toBe('tpl')
    expect(pressedIdOf({ listResponseMessage: { singleSelectReply: { selectedRowId: 'row' } } })).toBe('row')
    expect(
      pressedIdOf({
        buttonsResponseMessage: { selectedButtonId: null },
        listResponseMessage: { singleSelectReply: { selectedRowId: 'row' } },
      }),
    ).toBe('row')
    expect(pressedIdOf({ conversation: 'hello' })).toBeUndefined()
  })

  it('reads a plain text, else an extended one', () => {
    expect(textOf({ conversation: 'plain', extendedTextMessage: { text: 'extended' } })).toBe('plain')
    expect(textOf({ conversation: null, extendedTextMessage: { text: 'extended' } })).toBe('extended')
    expect(textOf({ buttonsResponseMessage: { selectedButtonId: 'yes' } })).toBeUndefined()
  })
})
