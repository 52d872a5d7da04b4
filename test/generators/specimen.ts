/**
 * Synthetic foreign passport data pages laid out like issuers' published specimens (issue 30, item 5: a
 * United Kingdom specimen page was refused as `wrong_document_type`). A TD3 page, 125 x 88 mm (ICAO Doc
 * 9303 part 4, 2), drawn at 10 px/mm: the issuer's header across the top, the portrait on the left, English
 * and French labels with the values in a monospaced face (as the UK, Irish and Canadian pages print
 * them), and the two 44-character MRZ rows at the bottom in OCR-B at the standard pitch (10 characters per
 * inch, 2.54 mm: Doc 9303 part 3, 4.2; the zone's rows 4.2 mm apart, its bottom row ~6 mm over the page edge).
 *
 * The page is then taken as a user sends it ({@link SpecimenCapture}): as scanned, small (the web copy of a
 * specimen, 270-420 px wide), turned by 90/180/270 degrees, photographed on a table with margins, or
 * faint (a low-contrast scan). The MRZ is built by `domain/mrz` from random values, so the ground truth is
 * known and every check digit holds.
 */
import sharp from 'sharp';
import { buildTd3 } from '../../domain/mrz/index.ts';
import { degrade } from './degrade.ts';
import { facePhoto } from './faces.ts';
import { createRng, type Rng } from './rng.ts';
import { FONT, guilloche, image, signature, text } from './svg.ts';

/** One issuer's look: header text, colours and the state code. */
interface Issuer {
  readonly code: string;
  readonly header: string;
  readonly nationality: string;
  readonly colours: readonly [string, string, string];
  readonly ink: string;
  /** Document number: `digits` 9 digits (UK), `alnum` 2 letters + 7 digits. */
  readonly number: 'digits' | 'alnum';
}

const ISSUERS: readonly Issuer[] = [
  { code: 'GBR', header: 'UNITED KINGDOM OF GREAT BRITAIN AND NORTHERN IRELAND', nationality: 'BRITISH CITIZEN', colours: ['#f3e6ef', '#e4ecf6', '#c9a9c4'], ink: '#7a1f4f', number: 'digits' },
  { code: 'IRL', header: 'ÉIRE / IRELAND', nationality: 'ÉIREANNACH/IRISH', colours: ['#e8f3ea', '#f6f1e2', '#a9c9b0'], ink: '#1f5a35', number: 'alnum' },
  { code: 'CAN', header: 'CANADA', nationality: 'CANADIAN/CANADIENNE', colours: ['#f6ece8', '#eef0f6', '#d4b2a8'], ink: '#8c1d1d', number: 'alnum' },
  { code: 'NZL', header: 'NEW ZEALAND', nationality: 'NEW ZEALAND', colours: ['#e6eef6', '#eef6ee', '#a7bcd3'], ink: '#1d3c6e', number: 'alnum' },
];

const GIVEN = ['JODIE PIPPA', 'OLIVER JAMES', 'AMELIA ROSE', 'HARRY', 'ISLA GRACE', 'GEORGE WILLIAM', 'SOPHIE', 'THOMAS EDWARD', 'CHLOE ANNE', 'JACK'];
const SURNAMES = ['UNITED KINGDOM TWENTY SIX', 'SMITH', "O'BRIEN", 'WILLIAMS-JONES', 'TAYLOR', 'MACDONALD', 'PATEL', 'EVANS', 'SPECIMEN', 'HUGHES'];
const PLACES = ['LONDON', 'CARDIFF', 'EDINBURGH', 'BELFAST', 'DUBLIN', 'TORONTO', 'AUCKLAND', 'MANCHESTER'];
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const FR_MONTHS = ['JAN', 'FEV', 'MARS', 'AVR', 'MAI', 'JUIN', 'JUIL', 'AOUT', 'SEPT', 'OCT', 'NOV', 'DEC'];

/** How the page reaches the API. */
export type SpecimenCapture = 'scan' | 'small' | 'rotated90' | 'rotated180' | 'rotated270' | 'photo' | 'faint';
/** Every capture, in the order the evaluation cycles through them. */
export const SPECIMEN_CAPTURES: readonly SpecimenCapture[] = ['scan', 'small', 'rotated90', 'rotated180', 'rotated270', 'photo', 'faint'];

/** Ground truth of a specimen page: what `ocr.extractId` should return for it. */
export interface SpecimenTruth {
  readonly issuingCountry: string;
  readonly documentNumber: string;
  /** MRZ name field words, `<` as spaces. */
  readonly surname: string;
  readonly name: string;
  /** `YYYY-MM-DD`. */
  readonly dateOfBirth: string;
  readonly dateOfExpiry: string;
  /** As the MRZ writes it: `M`, `F`. */
  readonly sex: 'M' | 'F';
  readonly mrz: readonly [string, string];
}

/** A rendered specimen page. */
export interface SpecimenPage {
  readonly image: Buffer;
  readonly capture: SpecimenCapture;
  readonly issuer: string;
  readonly truth: SpecimenTruth;
}

const W = 1250;
const H = 880;

function iso(y: number, m: number, d: number): string {
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
const yymmdd = (d: string) => d.slice(2, 4) + d.slice(5, 7) + d.slice(8, 10);
/** UK style visual-zone date: `17 JAN /JAN 85`. */
const vizDate = (d: string) => `${d.slice(8, 10)} ${MONTHS[Number(d.slice(5, 7)) - 1]} /${FR_MONTHS[Number(d.slice(5, 7)) - 1]} ${d.slice(2, 4)}`;

/**
 * Renders specimen page number `index` of `seed` (issuer, holder, dates and capture drawn from them;
 * `capture` forces the capture).
 */
export async function specimenPassport(seed: string, index: number, capture?: SpecimenCapture): Promise<SpecimenPage> {
  const rng = createRng(`${seed}:specimen:${index}`);
  const issuer = ISSUERS[index % ISSUERS.length]!;
  const how = capture ?? SPECIMEN_CAPTURES[index % SPECIMEN_CAPTURES.length]!;
  const surname = rng.pick(SURNAMES);
  const given = rng.pick(GIVEN);
  const sex = rng.chance(0.5) ? 'F' : 'M';
  const dob = iso(rng.int(1950, 2004), rng.int(1, 12), rng.int(1, 28));
  const issueYear = rng.int(2016, 2025);
  const doi = iso(issueYear, rng.int(1, 12), rng.int(1, 28));
  const doe = `${issueYear + 10}${doi.slice(4)}`;
  const documentNumber = issuer.number === 'digits' ? rng.digits(9) : String.fromCharCode(65 + rng.int(0, 25), 65 + rng.int(0, 25)) + rng.digits(7);
  const mrz = buildTd3({
    documentCode: 'P', issuingState: issuer.code, primaryIdentifier: surname, secondaryIdentifier: given, documentNumber,
    nationality: issuer.code, dateOfBirth: yymmdd(dob), sex, dateOfExpiry: yymmdd(doe),
  });
  const svg = await pageSvg(rng.fork('page'), issuer, { surname, given, sex, dob, doi, doe, documentNumber, place: rng.pick(PLACES) }, mrz, how === 'faint');
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const image = await captureImage(rng.fork('capture'), png, how);
  const words = (s: string) => s.split('<').filter(Boolean).join(' ');
  const [last, first] = mrz[0].slice(5).split('<<');
  return {
    image, capture: how, issuer: issuer.code,
    truth: { issuingCountry: issuer.code, documentNumber, surname: words(last ?? ''), name: words(first ?? ''), dateOfBirth: dob, dateOfExpiry: doe, sex, mrz },
  };
}

async function pageSvg(
  rng: Rng, issuer: Issuer,
  p: { surname: string; given: string; sex: string; dob: string; doi: string; doe: string; documentNumber: string; place: string },
  mrz: readonly [string, string], faint: boolean,
): Promise<string> {
  const labelInk = faint ? '#9a8f98' : issuer.ink;
  const valueInk = faint ? '#8a8a8a' : '#1a1a1a';
  const label = (x: number, y: number, s: string) => text(x, y, s, { size: 15, fill: labelInk, family: FONT.sans });
  const value = (x: number, y: number, s: string) => text(x, y, s, { size: 26, fill: valueInk, family: FONT.mono });
  let s = guilloche(rng, W, H, issuer.colours[0], issuer.colours[1], issuer.colours[2]);
  s += text(W / 2, 48, issuer.header, { size: 30, weight: 'bold', anchor: 'middle', fill: labelInk, family: FONT.serif });
  const photo = await facePhoto(rng, 300, 390, true);
  s += image(45, 120, 300, 390, photo.png, faint ? 0.55 : 1);
  const x = 400;
  const x2 = 760;
  let y = 110;
  const field = (lx: number, ly: number, l: string, v: string) => label(lx, ly, l) + value(lx, ly + 30, v);
  s += field(x, y, 'Type/Type', 'P') + field(x + 150, y, 'Code/Code', issuer.code) + field(x2 + 60, y, 'Passport No./Passeport No.', p.documentNumber);
  y += 64;
  s += field(x, y, 'Surname/Nom (1)', p.surname.replace(/ /g, '-'));
  y += 64;
  s += field(x, y, 'Given names/Prénoms (2)', p.given);
  y += 64;
  s += field(x, y, 'Nationality/Nationalité (3)', issuer.nationality);
  y += 64;
  s += field(x, y, 'Date of birth/Date de naissance (4)', vizDate(p.dob));
  y += 64;
  s += field(x, y, 'Sex/Sexe (5)', p.sex) + field(x + 200, y, 'Place of birth/Lieu de naissance (6)', p.place);
  y += 64;
  s += field(x, y, 'Date of issue/Date de délivrance (7)', vizDate(p.doi)) + field(x2 + 60, y, 'Authority/Autorité (8)', issuer.code === 'GBR' ? 'HMPO' : 'DFA');
  y += 64;
  s += field(x, y, 'Date of expiry/Date d\'expiration (9)', vizDate(p.doe)) + label(x2 + 60, y, 'Holder\'s signature/Signature du titulaire (10)');
  s += signature(rng, x2 + 80, y + 8, 260, 50);
  // OCR-B advances 0.717 em: 25.4 px (2.54 mm) per character at 35.4 px, 44 characters over 1118 px.
  const left = Math.round((W - 1118) / 2);
  const mrzInk = faint ? '#6e6e6e' : '#111';
  mrz.forEach((row, i) => (s += text(left, H - 84 + i * 50, row, { size: 35.4, family: FONT.ocrb, fill: mrzInk, length: 1118 })));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${s}</svg>`;
}

/** The page as the user sends it (see {@link SpecimenCapture}). */
async function captureImage(rng: Rng, png: Buffer, how: SpecimenCapture): Promise<Buffer> {
  switch (how) {
    case 'scan':
      return sharp(png).jpeg({ quality: 85 }).toBuffer();
    case 'small':
      // A specimen as published on the web: 270-420 px wide (the UK specimen in PassportEye's set is 272 px).
      return sharp(png).resize(rng.int(270, 420)).jpeg({ quality: 80 }).toBuffer();
    case 'rotated90':
    case 'rotated180':
    case 'rotated270': {
      const deg = Number(how.slice(7)) + rng.range(-3, 3);
      return sharp(png).rotate(deg, { background: '#d8d8d8' }).resize(rng.int(700, 1100)).jpeg({ quality: 80 }).toBuffer();
    }
    case 'photo':
      return (await degrade(rng, png)).jpeg;
    case 'faint':
      // A washed-out scan: contrast cut to ~45 % around a light grey, then slightly soft.
      return sharp(png).linear(0.45, 120).blur(0.6).resize(rng.int(600, 900)).jpeg({ quality: 70 }).toBuffer();
  }
}
