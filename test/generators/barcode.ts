/**
 * Interleaved 2 of 5 (ITF) bar codes, as printed on Mexican utility bills for the payment
 * reference. Source: ISO/IEC 16390:2007 (ITF symbology): each digit pair is encoded as five bars
 * (first digit) interleaved with five spaces (second digit), two of each five wide; start
 * pattern narrow bar/space/bar/space, stop pattern wide bar, narrow space, narrow bar.
 */

/** Wide (1) / narrow (0) patterns of the digits 0-9 (ISO/IEC 16390, Table 1). */
const ITF: readonly string[] = ['00110', '10001', '01001', '11000', '00101', '10100', '01100', '00011', '10010', '01010'];

/**
 * SVG rectangles of the ITF symbol of `digits` (even count; a leading 0 is added to odd ones).
 * @param narrow module width in px; wide bars are 2.5 modules.
 * @throws RangeError on non-digits.
 */
export function itfSvg(digits: string, x: number, y: number, height: number, narrow = 2): { svg: string; width: number } {
  if (!/^\d+$/.test(digits)) throw new RangeError('ITF encodes digits only');
  const d = digits.length % 2 ? `0${digits}` : digits;
  const wide = narrow * 2.5;
  const elements: Array<[bar: boolean, w: number]> = [[true, narrow], [false, narrow], [true, narrow], [false, narrow]];
  for (let i = 0; i < d.length; i += 2) {
    const a = ITF[Number(d[i])]!;
    const b = ITF[Number(d[i + 1])]!;
    for (let k = 0; k < 5; k++) {
      elements.push([true, a[k] === '1' ? wide : narrow]);
      elements.push([false, b[k] === '1' ? wide : narrow]);
    }
  }
  elements.push([true, wide], [false, narrow], [true, narrow]);
  let cx = x;
  let svg = '';
  for (const [bar, w] of elements) {
    if (bar) svg += `<rect x="${cx.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${height}" fill="#000"/>`;
    cx += w;
  }
  return { svg, width: cx - x };
}
