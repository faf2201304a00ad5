/** Fitting a table into a width: the least important column is cut first, then hidden; floors hold. */
import { describe, expect, it } from 'vitest'
import { cutCell, fitColumns, TABLE_LIMITS } from '../../src/cli/table-fit.js'

const width = (fitted: ReturnType<typeof fitColumns>) =>
  fitted.shown.reduce((sum, i) => sum + fitted.widths[i]!, 0) + TABLE_LIMITS.gap * (fitted.shown.length - 1)

describe('fitColumns', () => {
  const columns = [
    { header: 'ID', priority: 4, minWidth: 10 },
    { header: 'CHAT', priority: 1 },
    { header: 'ERROR', priority: 0, minWidth: 12 },
  ]
  const row = ['a'.repeat(20), 'c'.repeat(15), 'e'.repeat(40)]

  it('keeps natural widths when the table fits', () => {
    const fitted = fitColumns(columns, [row], 200)
    expect(fitted).toEqual({ shown: [0, 1, 2], widths: [20, 15, 40], hidden: [] })
  })

  it('cuts the least important column first, down to its floor, then the next', () => {
    expect(fitColumns(columns, [row], 60).widths).toEqual([20, 15, 21])
    const tighter = fitColumns(columns, [row], 40)
    // ERROR at its minWidth 12, CHAT at the column floor 5, and ID takes the rest.
    expect(tighter.widths).toEqual([19, 5, 12])
    expect(width(tighter)).toBeLessThanOrEqual(40)
    expect(tighter.hidden).toEqual([])
  })

  it('hides the least important columns whose floors do not fit, and never the last one', () => {
    const fitted = fitColumns(columns, [row], 30)
    expect(fitted.hidden).toEqual(['ERROR'])
    expect(fitted.shown).toEqual([0, 1])
    expect(width(fitted)).toBeLessThanOrEqual(30)
    expect(fitColumns(columns, [row], 3).shown).toEqual([0])
  })

  it('never cuts a whole column: the less important ones are cut, then hidden, instead', () => {
    const ids = [{ header: 'ID', priority: 4, whole: true }, ...columns.slice(1)]
    const long = ['demo-channel:grace:demo.grace.9', 'c'.repeat(15), 'e'.repeat(40)]
    // 31 + 15 + 12 and two gaps: the error at its floor, the chat whole, the id whole.
    const fitted = fitColumns(ids, [long], 62)
    expect(fitted.widths).toEqual([31, 15, 12])
    expect(fitColumns(ids, [long], 60).widths).toEqual([31, 13, 12])
    const narrow = fitColumns(ids, [long], 40)
    expect(narrow.shown).toEqual([0, 1])
    expect(narrow.widths[0]).toBe(long[0]!.length)
    expect(narrow.hidden).toEqual(['ERROR'])
    // Even beyond its cap (an id is whole however long it is).
    expect(fitColumns([{ header: 'ID', whole: true, maxWidth: 10 }], [['x'.repeat(70)]], 80).widths).toEqual([70])
  })

  it('of equal importance, the column further right is cut first', () => {
    const fitted = fitColumns([{ header: 'A' }, { header: 'B' }], [['x'.repeat(30), 'y'.repeat(30)]], 50)
    expect(fitted.widths).toEqual([30, 18])
  })

  it('measures wide characters as the terminal draws them', () => {
    expect(fitColumns([{ header: 'N' }], [['日本語']], 80).widths).toEqual([6])
    expect(cutCell('日本語テキスト', 7)).toBe('日本語…')
  })
})
