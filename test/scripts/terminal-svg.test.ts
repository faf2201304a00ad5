/**
 * The dashboard's picture in the docs is an Ink frame turned into SVG: each line a `<text>` at its
 * row, each styled run a `<tspan>` with the colour the theme asked for, XML escaped.
 */
import { describe, expect, it } from 'vitest'
import { terminalSvg } from '../../scripts/terminal-svg.js'

const texts = (svg: string) => [...svg.matchAll(/<text [^>]*>(.*?)<\/text>/g)].map((match) => match[1]!)

describe('terminalSvg', () => {
  it('draws one text element per non-empty line, at its row', () => {
    const svg = terminalSvg('first\n\nthird', { columns: 80, title: 'a frame' })
    const ys = [...svg.matchAll(/<text x="\d+" y="([\d.]+)"/g)].map((match) => Number(match[1]))
    expect(texts(svg)).toEqual(['<tspan>first</tspan>', '<tspan>third</tspan>'])
    expect(ys[1]! - ys[0]!).toBeCloseTo(2 * 17)
    expect(svg).toContain('<title>a frame</title>')
  })

  it('turns colour, bold and dim codes into attributes, and a reset ends them', () => {
    const [line] = texts(terminalSvg('\x1b[31m\x1b[1mdead 3\x1b[22m\x1b[39m ok \x1b[2mmuted\x1b[0m', { columns: 80, title: 't' }))
    expect(line).toBe('<tspan fill="#e06c75" font-weight="bold">dead 3</tspan><tspan> ok </tspan><tspan opacity="0.6">muted</tspan>')
  })

  it('carries a style over a line break, as a terminal does', () => {
    const lines = texts(terminalSvg('\x1b[36mone\ntwo\x1b[39m', { columns: 80, title: 't' }))
    expect(lines).toEqual(['<tspan fill="#56b6c2">one</tspan>', '<tspan fill="#56b6c2">two</tspan>'])
  })

  it('paints an inverse run on a background of the foreground colour', () => {
    const svg = terminalSvg('ab\x1b[7mcd\x1b[27m', { columns: 80, title: 't' })
    expect(svg).toMatch(/<rect x="28\.8" y="[\d.]+" width="16\.8" height="17" fill="#d4d4d4"\/>/)
    expect(texts(svg)[0]).toBe('<tspan>ab</tspan><tspan fill="#1e1e1e">cd</tspan>')
  })

  it('escapes what XML would read as markup', () => {
    expect(texts(terminalSvg('<id> & "x"', { columns: 80, title: 'a < b' }))[0]).toBe('<tspan>&lt;id&gt; &amp; "x"</tspan>')
  })
})
