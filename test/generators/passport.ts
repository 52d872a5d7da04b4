/**
 * Synthetic Mexican passport data pages (TD3, 125 x 88 mm) at ~250 dpi = 1240 x 872 px: visual
 * zone with bilingual labels (Doc 9303 Part 4, 3: visual inspection zone fields) and the
 * two-line MRZ built by `domain/mrz`. As on real Mexican passports (one in the shared MRZ line
 * set), the personal number is empty with check digit `0`; the CURP is printed in the visual zone.
 */
import { buildTd3 } from '../../domain/mrz/index.ts';
import { facePhoto } from './faces.ts';
import type { Person } from './person.ts';
import type { Rng } from './rng.ts';
import { FONT, guilloche, image, signature, text } from './svg.ts';

const MONTHS = ['ENE/JAN', 'FEB/FEB', 'MAR/MAR', 'ABR/APR', 'MAY/MAY', 'JUN/JUN', 'JUL/JUL', 'AGO/AUG', 'SEP/SEP', 'OCT/OCT', 'NOV/NOV', 'DIC/DEC'];

/** Everything printed on a data page. */
export interface PassportPage {
  readonly person: Person;
  /** Letter + 8 digits. */
  readonly documentNumber: string;
  /** `YYYY-MM-DD`. */
  readonly dateOfIssue: string;
  readonly dateOfExpiry: string;
  readonly placeOfBirth: string;
  readonly authority: string;
  readonly mrz: readonly [string, string];
}

/** Visual-zone date `09 MAR/MAR 1987`. */
export function passportDate(iso: string): string {
  return `${iso.slice(8, 10)} ${MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;
}

/** Draws a data page's content. Validity 3, 6 or 10 years (Mexican passport terms). */
export function randomPassport(rng: Rng, person: Person): PassportPage {
  const documentNumber = rng.pick(['G', 'N', 'P']) + rng.digits(8);
  const issueYear = rng.int(2016, 2025);
  const dateOfIssue = `${issueYear}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
  const dateOfExpiry = `${issueYear + rng.pick([3, 6, 10])}${dateOfIssue.slice(4)}`;
  const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
  const mrz = buildTd3({
    documentCode: 'P', issuingState: 'MEX', primaryIdentifier: `${person.firstSurname} ${person.secondSurname}`, secondaryIdentifier: person.names,
    documentNumber, nationality: 'MEX', dateOfBirth: yymmdd(person.dateOfBirth), sex: person.gender === 'H' ? 'M' : 'F', dateOfExpiry: yymmdd(dateOfExpiry),
    emptyPersonalNumberCheck: '0',
  });
  return {
    person, documentNumber, dateOfIssue, dateOfExpiry, mrz,
    placeOfBirth: rng.pick(['CIUDAD DE MÉXICO', 'JALISCO', 'NUEVO LEÓN', 'PUEBLA', 'YUCATÁN', 'OAXACA', 'GUANAJUATO', 'MICHOACÁN']),
    authority: rng.pick(['SRE', 'SRE CDMX', 'DELEGACIÓN SRE GUADALAJARA', 'DELEGACIÓN SRE MONTERREY']),
  };
}

const W = 1240;
const H = 872;

/** Renders the data page as SVG. */
export async function passportSvg(rng: Rng, pp: PassportPage): Promise<{ svg: string; photoSource: string; mrzBox: [number, number, number, number] }> {
  const p = pp.person;
  const j = () => rng.int(-4, 4);
  const label = (x: number, y: number, s: string) => text(x, y, s, { size: 15, fill: '#2d5f4a', family: FONT.sans });
  const value = (x: number, y: number, s: string, size = 24) => text(x, y, s, { size, weight: 'bold', family: FONT.condensed });
  let s = guilloche(rng, W, H, '#eef5ec', '#e8e0ef', '#a9c7b5');
  s += text(W / 2 + 100, 50, 'ESTADOS UNIDOS MEXICANOS', { size: 30, weight: 'bold', anchor: 'middle', fill: '#1f4d3a', family: FONT.serif });
  s += text(W / 2 + 100, 82, 'PASAPORTE / PASSPORT', { size: 20, anchor: 'middle', fill: '#1f4d3a' });
  const photo = [40 + j(), 120 + j(), 300, 380] as const;
  const { png, source } = await facePhoto(rng, photo[2], photo[3], false);
  s += image(photo[0], photo[1], photo[2], photo[3], png);
  s += signature(rng, 60, 520, 250, 60);
  const x = 380 + j();
  let y = 130 + j();
  s += label(x, y, 'Tipo / Type') + value(x, y + 26, 'P') + label(x + 170, y, 'Clave del país / Code of issuing State') + value(x + 170, y + 26, 'MEX');
  s += label(x + 560, y, 'Pasaporte No. / Passport No.') + value(x + 560, y + 26, pp.documentNumber);
  y += 62;
  s += label(x, y, 'Apellidos / Surnames') + value(x, y + 26, `${p.firstSurname} ${p.secondSurname}`);
  y += 62;
  s += label(x, y, 'Nombres / Given names') + value(x, y + 26, p.names);
  y += 62;
  s += label(x, y, 'Nacionalidad / Nationality') + value(x, y + 26, 'MEXICANA') + label(x + 380, y, 'Observaciones / Observations');
  y += 62;
  s += label(x, y, 'Fecha de nacimiento / Date of birth') + value(x, y + 26, passportDate(p.dateOfBirth)) + label(x + 380, y, 'CURP') + value(x + 380, y + 26, p.curp);
  y += 62;
  s += label(x, y, 'Sexo / Sex') + value(x, y + 26, p.gender === 'H' ? 'M' : 'F') + label(x + 170, y, 'Lugar de nacimiento / Place of birth') + value(x + 170, y + 26, pp.placeOfBirth);
  y += 62;
  s += label(x, y, 'Fecha de expedición / Date of issue') + value(x, y + 26, passportDate(pp.dateOfIssue)) + label(x + 380, y, 'Fecha de caducidad / Date of expiry') + value(x + 380, y + 26, passportDate(pp.dateOfExpiry));
  y += 62;
  s += label(x, y, 'Autoridad / Authority') + value(x, y + 26, pp.authority);
  const top = 690 + j();
  const left = 40 + j();
  const width = 1160;
  s += `<rect x="0" y="${top - 15}" width="${W}" height="${H - top + 15}" fill="#fbfbf8" opacity="0.9"/>`;
  // OCR-B advances 0.717 em per character: 44 characters at 36 px span ~1136 px.
  pp.mrz.forEach((l, i) => (s += text(left, top + 52 + i * 70, l, { size: 36, family: FONT.ocrb })));
  return { svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${s}</svg>`, photoSource: source, mrzBox: [left, top, width, 160] };
}
