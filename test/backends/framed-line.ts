/**
 * A framed record line spelled out from the format's definition (framing.ts's header), with
 * strings: the reference the framers are checked against, and the way tests write damaged files.
 */
import { crc32 } from '../../src/crash-safe-file/framing.js'

/** `<seq>\t<length>\t<crc32>\t<payload>\n` as bytes; the checksum is CRC-32 of the head XOR CRC-32 of the payload. */
export function framedLine(seq: number, payload: string): Buffer {
  const body = Buffer.from(payload)
  const head = `${seq}\t${body.length}\t`
  const sum = ((crc32(Buffer.from(head)) ^ crc32(body)) >>> 0).toString(16).padStart(8, '0')
  return Buffer.concat([Buffer.from(`${head}${sum}\t`), body, Buffer.from('\n')])
}
