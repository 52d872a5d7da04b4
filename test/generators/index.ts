/**
 * Synthetic document generator: INE credentials (fronts and backs, models D-G), Mexican
 * passport data pages, and electricity / phone / cable bills, each with ground truth whose
 * `fields` follow the spec ("OCR identity result", "OCR address-proof result") exactly.
 * Deterministic: document `index` of a run with `seed` depends only on (seed, type, index).
 * See docs/ocr-synthetic.md.
 */
import sharp from 'sharp';
import { BILL_TYPES, billSvg, randomBill, type BillFields, type BillType } from './bills.ts';
import { degrade, type DegradationInfo } from './degrade.ts';
import { INE_MODELS, ineBackSvg, ineFrontSvg, randomIneCard, type IneModel } from './ine.ts';
import { passportSvg, randomPassport } from './passport.ts';
import { randomPerson } from './person.ts';
import { createRng } from './rng.ts';

/** Document types the generator renders (the API's `document_type` values). */
export const DOCUMENT_TYPES = ['ine', 'passport', ...BILL_TYPES] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Spec `fields` of an INE result. */
export interface IneFields {
  curp: string;
  claveElector: string;
  name: string;
  firstSurname: string;
  secondSurname: string;
  surname: string;
  dateOfBirth: string;
  dateOfExpiry: string;
  gender: 'H' | 'M';
  address: string;
  detailAddress: { streetAndNumber: string; colony: string; zipCode: string; city: string; state: string };
  section: string;
  mrz: string;
  documentVersion: string;
}

/** Spec `fields` of a passport result. */
export interface PassportFields {
  curp: string;
  documentNumber: string;
  name: string;
  firstSurname: string;
  secondSurname: string;
  surname: string;
  dateOfBirth: string;
  dateOfExpiry: string;
  gender: 'H' | 'M';
  nationality: string;
  issuingCountry: string;
  mrz: string;
  documentVersion: string;
}

/** Spec `validation` expected from a correct reading of the document. */
export interface ExpectedValidation {
  mrz: 'ok' | 'failed' | 'not_present';
  mrzFields?: { documentNumberCheck: boolean; dateOfBirthCheck: boolean; dateOfExpiryCheck: boolean; compositeCheck: boolean };
  curp: 'ok' | 'failed' | 'not_present';
  expired: boolean | null;
}

/** Ground truth of one generated document (written as JSON beside the images). */
export interface GroundTruth {
  type: DocumentType;
  seed: string;
  index: number;
  /** Image file names by side: `front` and `back` (INE), `front` (passport page, bills). */
  images: Record<string, string>;
  degraded: boolean;
  fields: IneFields | PassportFields | BillFields;
  /** Expected `validation` (INE: with the back supplied). */
  validation: ExpectedValidation;
  /** Generator details: model letter, CIC, citizen identifier, printed forms, photo source, boxes, degradations. */
  extra: Record<string, unknown>;
}

/** Options of {@link generateDocument}. */
export interface GenerateOptions {
  type: DocumentType;
  seed: string | number;
  index: number;
  degrade?: boolean;
  /** Forces an INE model. */
  model?: IneModel;
  /** Print names and address with their accents and Ñ (default true); false prints plain capitals (`person.ts`). */
  accents?: boolean;
  /** Date `expired` is computed against (default `2026-06-01`, fixed so outputs are reproducible). */
  referenceDate?: string;
}

/** One generated document: images (PNG clean, JPEG degraded) and ground truth. */
export interface GeneratedDocument {
  images: Record<string, { data: Buffer; ext: 'png' | 'jpg' }>;
  truth: Omit<GroundTruth, 'images'>;
}

const ALL_CHECKS = { documentNumberCheck: true, dateOfBirthCheck: true, dateOfExpiryCheck: true, compositeCheck: true };

/**
 * Renders one document.
 * @throws Error for an unknown `type`.
 */
export async function generateDocument(o: GenerateOptions): Promise<GeneratedDocument> {
  const seed = String(o.seed);
  const rng = createRng(`${seed}:${o.type}:${o.index}`);
  const person = randomPerson(rng.fork('person'), { accents: o.accents });
  const ref = o.referenceDate ?? '2026-06-01';
  const svgs: Record<string, string> = {};
  let fields: GeneratedDocument['truth']['fields'];
  let validation: ExpectedValidation;
  const extra: Record<string, unknown> = {};
  const fullName = { name: person.names, firstSurname: person.firstSurname, secondSurname: person.secondSurname, surname: `${person.firstSurname} ${person.secondSurname}` };

  if (o.type === 'ine') {
    const modelRng = rng.fork('model');
    const model = o.model ?? (modelRng.pick(['D', 'E', 'E', 'F', 'F', 'G', 'G', 'G'] as const) satisfies IneModel);
    if (!INE_MODELS.includes(model)) throw new Error(`unknown INE model ${model}`);
    const card = randomIneCard(rng.fork('card'), person, model);
    const front = await ineFrontSvg(rng.fork('front'), card);
    const back = ineBackSvg(rng.fork('back'), card);
    svgs.front = front.svg;
    svgs.back = back.svg;
    const a = person.address;
    fields = {
      curp: person.curp, claveElector: person.claveElector, ...fullName, dateOfBirth: person.dateOfBirth, dateOfExpiry: card.expiryYear, gender: person.gender,
      address: card.addressLines.join(' '),
      // The card prints `COL ` before the colony's name; the field is the name alone (issue 30).
      detailAddress: { streetAndNumber: a.streetAndNumber, colony: a.colony.replace(/^COL /, ''), zipCode: a.zipCode, city: a.city, state: a.state },
      section: card.section, mrz: card.mrz.join('\n'), documentVersion: model,
    } satisfies IneFields;
    validation = { mrz: 'ok', mrzFields: ALL_CHECKS, curp: 'ok', expired: ref > `${card.expiryYear}-12-31` };
    Object.assign(extra, {
      model, cic: card.cic, identificadorCiudadano: card.identificadorCiudadano, ocr: `${card.section}${card.identificadorCiudadano}`, emissionYear: card.emissionYear,
      registration: card.registration, emission: card.emission, dateOfExpiryMrz: `${card.expiryYear}-12-31`, mrzSex: card.mrz[1].charAt(7),
      photoSource: front.photoSource, photoBox: front.photoBox, mrzBox: back.mrzBox, folio: model === 'D' ? card.folio : undefined,
    });
  } else if (o.type === 'passport') {
    const pp = randomPassport(rng.fork('passport'), person);
    const page = await passportSvg(rng.fork('page'), pp);
    svgs.front = page.svg;
    fields = {
      curp: person.curp, documentNumber: pp.documentNumber, ...fullName, dateOfBirth: person.dateOfBirth, dateOfExpiry: pp.dateOfExpiry, gender: person.gender,
      nationality: 'MEX', issuingCountry: 'MEX', mrz: pp.mrz.join('\n'), documentVersion: '',
    } satisfies PassportFields;
    validation = { mrz: 'ok', mrzFields: ALL_CHECKS, curp: 'ok', expired: ref > pp.dateOfExpiry };
    Object.assign(extra, { dateOfIssue: pp.dateOfIssue, placeOfBirth: pp.placeOfBirth, mrzSex: pp.mrz[1].charAt(20), photoSource: page.photoSource, mrzBox: page.mrzBox });
  } else if ((BILL_TYPES as readonly string[]).includes(o.type)) {
    const bill = randomBill(rng.fork('bill'), person, o.type as BillType);
    svgs.front = billSvg(rng.fork('render'), bill, person).svg;
    fields = bill.fields;
    validation = { mrz: 'not_present', curp: 'not_present', expired: null };
    Object.assign(extra, { layout: bill.layout, printed: bill.printed });
  } else {
    throw new Error(`unknown document type ${String(o.type)}`);
  }

  const images: GeneratedDocument['images'] = {};
  const degradations: Record<string, DegradationInfo> = {};
  for (const [side, svg] of Object.entries(svgs)) {
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    if (o.degrade) {
      const d = await degrade(rng.fork(`degrade-${side}`), png);
      images[side] = { data: d.jpeg, ext: 'jpg' };
      degradations[side] = d.info;
    } else {
      images[side] = { data: png, ext: 'png' };
    }
  }
  if (o.degrade) extra.degradations = degradations;
  return { images, truth: { type: o.type, seed, index: o.index, degraded: !!o.degrade, fields, validation, extra } };
}
