/**
 * Synthetic INE / IFE voter credentials (credencial para votar), fronts and backs, ID-1 size
 * (85.6 x 54 mm) at 300 dpi = 1012 x 638 px. Models (the letter goes to `documentVersion`):
 * - `D`: IFE model 2008-2013 (Instituto Federal Electoral; EDAD and FOLIO; EMISIÓN and
 *   VIGENCIA HASTA apart).
 * - `E`: INE 2014-2016 (first INE model; ESTADO/MUNICIPIO/LOCALIDAD codes; EMISIÓN, VIGENCIA).
 * - `F`: INE 2016-2019 (same fields, codes on one row under the data block).
 * - `G`: INE 2019- (VIGENCIA as "2019 - 2029", SECCIÓN highlighted, QR codes on the back).
 * Layouts follow the public descriptions of the models, redrawn; positions jitter per document.
 * Every back carries the TD1 MRZ `IDMEX...` built by `domain/mrz` (valid check digits).
 */
import { buildIneMrz } from '../../domain/mrz/index.ts';
import { facePhoto } from './faces.ts';
import type { Person } from './person.ts';
import type { Rng } from './rng.ts';
import { FONT, fakeQr, guilloche, image, signature, text } from './svg.ts';

/** Credential models rendered. */
export const INE_MODELS = ['D', 'E', 'F', 'G'] as const;
export type IneModel = (typeof INE_MODELS)[number];

/** Everything printed on one credential. */
export interface IneCard {
  readonly model: IneModel;
  readonly person: Person;
  /** CIC, 9 digits. */
  readonly cic: string;
  /** Electoral section, 4 digits. */
  readonly section: string;
  /** Identificador del ciudadano, 9 digits. */
  readonly identificadorCiudadano: string;
  /** `2010 01`. */
  readonly registration: string;
  readonly emissionYear: string;
  readonly expiryYear: string;
  /** Emission number (01-03), in the MRZ optional data. */
  readonly emission: string;
  readonly municipio: string;
  readonly localidad: string;
  /** 13 digits (model D front). */
  readonly folio: string;
  readonly mrz: readonly [string, string, string];
  /** Printed address lines. */
  readonly addressLines: readonly [string, string, string];
}

/** Draws the printed data of a credential. */
export function randomIneCard(rng: Rng, person: Person, model: IneModel): IneCard {
  const birthYear = Number(person.dateOfBirth.slice(0, 4));
  const minEmission = Math.max(birthYear + 18, model === 'D' ? 2008 : model === 'E' ? 2014 : model === 'F' ? 2016 : 2019);
  const maxEmission = model === 'D' ? 2013 : model === 'E' ? 2016 : model === 'F' ? 2019 : 2025;
  const emissionYear = String(Math.min(maxEmission, rng.int(minEmission, Math.max(minEmission, maxEmission))));
  const expiryYear = String(Number(emissionYear) + 10);
  const regYear = Math.min(Number(emissionYear), birthYear + 18 + rng.int(0, 10));
  const cic = rng.digits(9);
  const section = String(rng.int(1, 5999)).padStart(4, '0');
  const identificadorCiudadano = rng.digits(9);
  const emission = String(rng.int(1, 3)).padStart(2, '0');
  const [firstSurname, secondSurname] = [person.firstSurname, person.secondSurname];
  const mrz = buildIneMrz({
    cic, section, identificadorCiudadano, dateOfBirth: person.dateOfBirth, gender: person.gender, expiryYear, emission,
    firstSurname, secondSurname, names: person.names,
  });
  const a = person.address;
  return {
    model, person, cic, section, identificadorCiudadano, registration: `${regYear} ${String(rng.int(0, 3)).padStart(2, '0')}`,
    emissionYear, expiryYear, emission, municipio: String(rng.int(1, 120)).padStart(3, '0'), localidad: String(rng.int(1, 300)).padStart(4, '0'),
    folio: rng.digits(13), mrz,
    addressLines: [a.streetAndNumber, `${a.colony} ${a.zipCode}`, `${a.city}, ${a.state}.`],
  };
}

/** Card size in px (ID-1, 85.6 x 54 mm, at 300 dpi). */
export const INE_CARD_SIZE = [1012, 638] as const;
const [W, H] = INE_CARD_SIZE;

function fmtDate(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

function age(iso: string, year: number): string {
  return String(year - Number(iso.slice(0, 4)));
}

/** Renders the front as an SVG string (photo embedded). */
export async function ineFrontSvg(rng: Rng, c: IneCard): Promise<{ svg: string; photoSource: string; photoBox: [number, number, number, number] }> {
  const p = c.person;
  const j = () => rng.int(-4, 4);
  const label = (x: number, y: number, s: string) => text(x, y, s, { size: 14, weight: 'bold', fill: c.model === 'D' ? '#3d5a80' : '#7a2048', family: FONT.sans });
  const value = (x: number, y: number, s: string, size = 21) => text(x, y, s, { size, weight: 'bold', family: FONT.condensed });
  const colors: Record<IneModel, [string, string, string]> = {
    D: ['#e4ebf2', '#c9d6e3', '#8aa5c6'], E: ['#f4e8ee', '#e2d3e6', '#c3a0c4'], F: ['#f1efe3', '#e6d6e6', '#c9aacb'], G: ['#f8eff3', '#e8dff0', '#c995b2'],
  };
  const [c1, c2, cl] = colors[c.model];
  const photoBox: [number, number, number, number] = c.model === 'D' ? [28 + j(), 118 + j(), 230, 290] : [32 + j(), 150 + j(), 240, 300];
  const { png, source } = await facePhoto(rng, photoBox[2], photoBox[3], c.model !== 'D');
  let s = guilloche(rng, W, H, c1, c2, cl);
  s += image(photoBox[0], photoBox[1], photoBox[2], photoBox[3], png);
  s += `<rect x="${photoBox[0]}" y="${photoBox[1]}" width="${photoBox[2]}" height="${photoBox[3]}" fill="none" stroke="#777" stroke-width="1"/>`;
  s += signature(rng, photoBox[0] + 20, photoBox[1] + photoBox[3] + 30, 190, 50);
  const nameLines = [p.firstSurname, p.secondSurname, p.names];
  if (c.model === 'D') {
    s += text(W / 2 + 60, 48, 'INSTITUTO FEDERAL ELECTORAL', { size: 30, weight: 'bold', anchor: 'middle', fill: '#1f3b63', family: FONT.serif });
    s += text(W / 2 + 60, 78, 'REGISTRO FEDERAL DE ELECTORES', { size: 18, anchor: 'middle', fill: '#1f3b63' });
    s += text(W / 2 + 60, 102, 'CREDENCIAL PARA VOTAR', { size: 18, weight: 'bold', anchor: 'middle', fill: '#1f3b63' });
    const x = 285 + j();
    let y = 150 + j();
    s += label(x, y, 'NOMBRE');
    s += label(x + 420, y, 'EDAD') + value(x + 480, y, age(p.dateOfBirth, Number(c.emissionYear)), 18);
    s += label(x + 420, y + 26, 'SEXO') + value(x + 480, y + 26, p.gender, 18);
    nameLines.forEach((n, i) => (s += value(x, y + 26 + i * 26, n)));
    y += 118;
    s += label(x, y, 'DOMICILIO');
    c.addressLines.forEach((l, i) => (s += value(x, y + 25 + i * 25, l, 19)));
    y += 112;
    s += label(x, y, 'FOLIO') + value(x + 60, y, c.folio, 17) + label(x + 260, y, 'AÑO DE REGISTRO') + value(x + 410, y, c.registration, 17);
    s += label(x, y + 30, 'CLAVE DE ELECTOR') + value(x + 165, y + 30, p.claveElector, 19);
    s += label(x, y + 60, 'CURP') + value(x + 60, y + 60, p.curp, 19);
    s += label(x, y + 90, 'ESTADO') + value(x + 70, y + 90, p.address.claveEntidad, 17) + label(x + 110, y + 90, 'MUNICIPIO') + value(x + 205, y + 90, c.municipio, 17);
    s += label(x + 260, y + 90, 'SECCIÓN') + value(x + 340, y + 90, c.section, 17) + label(x + 410, y + 90, 'LOCALIDAD') + value(x + 510, y + 90, c.localidad, 17);
    s += label(x, y + 120, 'EMISIÓN') + value(x + 80, y + 120, c.emissionYear, 17) + label(x + 160, y + 120, 'VIGENCIA HASTA') + value(x + 300, y + 120, c.expiryYear, 17);
    s += label(x + 390, y + 120, 'FECHA DE NACIMIENTO') + value(x + 390, y + 142, fmtDate(p.dateOfBirth), 17);
    return { svg: wrap(s), photoSource: source, photoBox };
  }
  s += text(30, 40, 'MÉXICO', { size: 22, weight: 'bold', fill: '#5b1a3a' });
  s += text(W / 2 + 80, 48, 'INSTITUTO NACIONAL ELECTORAL', { size: 30, weight: 'bold', anchor: 'middle', fill: '#5b1a3a' });
  s += text(W / 2 + 80, 82, 'CREDENCIAL PARA VOTAR', { size: 22, anchor: 'middle', fill: '#5b1a3a' });
  const x = 292 + j();
  let y = 140 + j();
  s += label(x, y, 'NOMBRE');
  s += label(x + 560, y, 'SEXO') + value(x + 620, y, p.gender, 20);
  nameLines.forEach((n, i) => (s += value(x, y + 26 + i * 26, n)));
  y += 118;
  s += label(x, y, 'DOMICILIO');
  c.addressLines.forEach((l, i) => (s += value(x, y + 25 + i * 25, l, 19)));
  y += 110;
  s += label(x, y, 'CLAVE DE ELECTOR') + value(x + 165, y, p.claveElector, 20);
  s += label(x, y + 30, 'CURP') + value(x + 60, y + 30, p.curp, 20);
  s += label(x + 330, y + 30, 'AÑO DE REGISTRO') + value(x + 480, y + 30, c.registration, 18);
  s += label(x, y + 60, 'FECHA DE NACIMIENTO') + value(x + 200, y + 60, fmtDate(p.dateOfBirth), 19);
  if (c.model === 'G') {
    s += `<rect x="${x + 325}" y="${y + 40}" width="150" height="30" fill="#ffffff" opacity="0.6"/>`;
    s += label(x + 330, y + 60, 'SECCIÓN') + value(x + 410, y + 61, c.section, 20);
    s += label(x, y + 90, 'VIGENCIA') + value(x + 95, y + 90, `${c.emissionYear} - ${c.expiryYear}`, 19);
    // ghost photo
    s += image(W - 130, H - 170, 100, 125, (await facePhoto(rng.fork('ghost'), 100, 125, true)).png, 0.35);
  } else if (c.model === 'E') {
    s += label(x + 330, y + 60, 'SECCIÓN') + value(x + 410, y + 60, c.section, 19);
    s += label(x, y + 90, 'ESTADO') + value(x + 72, y + 90, p.address.claveEntidad, 18) + label(x + 115, y + 90, 'MUNICIPIO') + value(x + 212, y + 90, c.municipio, 18);
    s += label(x + 270, y + 90, 'LOCALIDAD') + value(x + 372, y + 90, c.localidad, 18);
    s += label(x, y + 120, 'EMISIÓN') + value(x + 80, y + 120, c.emissionYear, 18) + label(x + 150, y + 120, 'VIGENCIA') + value(x + 240, y + 120, c.expiryYear, 18);
  } else {
    s += label(x, y + 95, 'ESTADO') + label(x + 90, y + 95, 'MUNICIPIO') + label(x + 200, y + 95, 'SECCIÓN') + label(x + 290, y + 95, 'LOCALIDAD') + label(x + 400, y + 95, 'EMISIÓN') + label(x + 490, y + 95, 'VIGENCIA');
    s += value(x, y + 120, p.address.claveEntidad, 18) + value(x + 90, y + 120, c.municipio, 18) + value(x + 200, y + 120, c.section, 18) + value(x + 290, y + 120, c.localidad, 18) + value(x + 400, y + 120, c.emissionYear, 18) + value(x + 490, y + 120, c.expiryYear, 18);
  }
  return { svg: wrap(s), photoSource: source, photoBox };
}

/** Renders the back (MRZ at the bottom) as an SVG string. */
export function ineBackSvg(rng: Rng, c: IneCard): { svg: string; mrzBox: [number, number, number, number] } {
  const colors: Record<IneModel, [string, string, string]> = {
    D: ['#e8eef4', '#d3dde8', '#9fb4cf'], E: ['#f5edf1', '#e9dbe9', '#cfb0cf'], F: ['#f3f1e8', '#eadbea', '#d1b6d2'], G: ['#f9f1f5', '#ece3f2', '#d3a7c0'],
  };
  const [c1, c2, cl] = colors[c.model];
  let s = guilloche(rng, W, H, c1, c2, cl);
  const j = () => rng.int(-3, 3);
  if (c.model === 'G') {
    s += fakeQr(rng, 40 + j(), 40 + j(), 150) + fakeQr(rng, 210 + j(), 40 + j(), 150);
  } else {
    s += fakeQr(rng, 40 + j(), 40 + j(), 160);
  }
  s += `<rect x="${760 + j()}" y="${40 + j()}" width="200" height="230" fill="#fff" stroke="#888"/>`;
  s += text(860, 290, 'HUELLA', { size: 13, anchor: 'middle', fill: '#555' });
  for (let i = 0; i < 14; i++) s += `<ellipse cx="860" cy="155" rx="${12 + i * 6}" ry="${16 + i * 7}" fill="none" stroke="#444" stroke-width="1.5" opacity="0.7"/>`;
  s += signature(rng, 420, 120, 260, 70) + text(550, 230, 'FIRMA', { size: 13, anchor: 'middle', fill: '#555' });
  s += text(40, 320, c.model === 'D' ? 'INSTITUTO FEDERAL ELECTORAL' : 'INSTITUTO NACIONAL ELECTORAL', { size: 15, weight: 'bold', fill: '#5b1a3a' });
  s += text(40, 345, 'Esta credencial es un documento público y su uso es personal e intransferible.', { size: 13, fill: '#333' });
  // MRZ: white band, 3 OCR-B lines of 30 characters (Doc 9303 Part 5: 3 lines, pitch ~2.54 mm).
  const top = 420 + j();
  const left = 52 + j();
  const width = 905;
  s += `<rect x="0" y="${top - 20}" width="${W}" height="${H - top + 20}" fill="#fbfbfb" opacity="0.9"/>`;
  // OCR-B advances 0.717 em per character: 30 characters at 40 px span ~860 px.
  c.mrz.forEach((l, i) => (s += text(left, top + 42 + i * 62, l, { size: 40, family: FONT.ocrb, fill: '#111' })));
  return { svg: wrap(s), mrzBox: [left, top, width, 62 * 3 + 10] };
}

function wrap(inner: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${inner}</svg>`;
}
