/**
 * Utility bills (spec "OCR address-proof result"): `electricity_bill`, `phone_bill`, `cable_bill`.
 * Fields are found from their printed labels (Spanish, as Mexican bills print them) and from content
 * patterns (postal code `C.P. 00000`, money, dates, long digit runs under a bar code), never from fixed
 * pixel positions, so the same reader serves the three providers and their layout revisions.
 */
import { findLabel, valueCandidates, type LabelHit } from './layout.ts';
import { OcrError } from './errors.ts';
import { compact, containsLabel, foldAccents, type OcrLine } from './text.ts';

/** The three bill types of the spec. */
export const BILL_TYPES = ['electricity_bill', 'phone_bill', 'cable_bill'] as const;
export type BillType = (typeof BILL_TYPES)[number];

/** `fields` of the address-proof result (all strings, '' when not read). */
export interface BillFields {
  name: string;
  fullAddress: string;
  zipCode: string;
  phone: string;
  accountNumber: string;
  serviceNumber: string;
  billNumber: string;
  billingPeriod: string;
  totalPayment: string;
  paymentLimitDate: string;
  barCode: string;
}

/** Label variants per field (accents folded, case-insensitive, tolerant to one OCR error per 6 chars). */
export const BILL_LABELS = {
  name: ['NOMBRE DEL TITULAR', 'NOMBRE', 'TITULAR', 'CLIENTE'],
  phone: ['NUMERO TELEFONICO', 'NO. TELEFONICO', 'TELEFONO', 'TEL.', 'LINEA'],
  accountNumber: ['NUMERO DE CUENTA', 'NO. DE CUENTA', 'NO DE CUENTA', 'CUENTA'],
  serviceNumber: ['NUMERO DE SERVICIO', 'NO. DE SERVICIO', 'NO DE SERVICIO', 'SERVICIO'],
  billNumber: ['NUMERO DE FACTURA', 'NO. DE FACTURA', 'FACTURA', 'NO. DE RECIBO', 'RECIBO', 'FOLIO'],
  billingPeriod: ['PERIODO FACTURADO', 'PERIODO DE FACTURACION', 'PERIODO DE SERVICIO', 'PERIODO'],
  totalPayment: ['TOTAL A PAGAR', 'TOTAL'],
  paymentLimitDate: ['FECHA LIMITE DE PAGO', 'LIMITE DE PAGO', 'PAGAR ANTES DE', 'FECHA DE VENCIMIENTO', 'VENCE'],
  barCode: ['CODIGO DE BARRAS', 'REFERENCIA DE PAGO', 'REFERENCIA'],
} as const;

const ALL_LABELS = Object.values(BILL_LABELS).flat();

/** Cue words of each provider type (neutral names: an electricity utility, a phone operator, a cable operator). */
const TYPE_CUES: Record<BillType, string[]> = {
  electricity_bill: ['KWH', 'ENERGIA', 'ELECTRICIDAD', 'CONSUMO', 'MEDIDOR', 'TARIFA', 'LUZ'],
  phone_bill: ['TELEFON', 'LLAMADAS', 'LARGA DISTANCIA', 'LINEA', 'TELECOM'],
  cable_bill: ['CABLE', 'TELEVISION', 'INTERNET', 'CANALES', 'PAQUETE', 'MEGAS', 'TV'],
};

/** Which bill type the text looks like, or null (scores the cue words; ties -> null). */
export function guessBillType(lines: readonly OcrLine[]): BillType | null {
  const text = compact(lines.map((l) => l.text).join(' '));
  let best: BillType | null = null;
  let bestScore = 0;
  let tie = false;
  for (const t of BILL_TYPES) {
    const s = TYPE_CUES[t].filter((c) => text.includes(compact(c))).length;
    if (s > bestScore) {
      best = t;
      bestScore = s;
      tie = false;
    } else if (s === bestScore && s > 0) tie = true;
  }
  return tie ? null : best;
}

/** A label's value with the label text itself and separators (`:`) removed. */
function valueOf(lines: readonly OcrLine[], labels: readonly string[]): { hit: LabelHit | null; values: string[] } {
  const hit = findLabel(lines, labels);
  if (!hit) return { hit: null, values: [] };
  const values = valueCandidates(lines, hit)
    .map((v) => v.replace(/^[\s:.#-]+/, '').trim())
    .filter((v) => v && !ALL_LABELS.some((l) => compact(v) === compact(l)));
  return { hit, values };
}

function digitsRun(s: string, min: number, max = 40): string {
  const m = s.replace(/[Oo]/g, '0').replace(/\s+/g, '').match(new RegExp(`\\d{${min},${max}}`));
  return m ? m[0] : '';
}

/** Normalises an amount to `$1,234.56` (keeps the printed grouping). */
function money(s: string): string {
  const m = s.replace(/\s+/g, '').replace(/[Oo]/g, '0').match(/\$?\d{1,3}(?:,\d{3})*(?:\.\d{2})|\$?\d+(?:\.\d{2})/);
  if (!m) return '';
  return m[0].startsWith('$') ? m[0] : `$${m[0]}`;
}

const MONTHS = 'ENE|FEB|MAR|ABR|MAY|JUN|JUL|AGO|SEP|SEPT|OCT|NOV|DIC';
const DATE_NUM = /(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{2,4})/;
const DATE_TXT = new RegExp(`(\\d{1,2})\\s*[/.-]?\\s*(${MONTHS})[A-Z]*\\.?\\s*[/.-]?\\s*(\\d{4}|\\d{2})`);

/**
 * First date in `s`, normalised: `DD MMM YY` for month-name dates (as bills print them, spaces restored
 * when OCR glued them), `DD/MM/YYYY` for numeric ones. '' when none.
 */
export function dateIn(s: string): string {
  const t = foldAccents(s).replace(/[Oo](?=\d)|(?<=\d)[Oo]/g, '0');
  const a = DATE_TXT.exec(t);
  const b = DATE_NUM.exec(t);
  if (a && (!b || a.index <= b.index)) return `${a[1]!.padStart(2, '0')} ${a[2]} ${a[3]}`;
  if (b) return `${b[1]!.padStart(2, '0')}/${b[2]!.padStart(2, '0')}/${b[3]}`;
  return '';
}

/** A billing period `date - date` normalised with {@link dateIn}; the raw text when it holds no two dates. */
export function periodIn(s: string): string {
  const parts = foldAccents(s).split(/\s*(?:-|–|AL|A)\s*(?=\d)/);
  if (parts.length >= 2) {
    const a = dateIn(parts[0]!);
    const b = dateIn(parts.slice(1).join(' '));
    if (a && b) return `${a} - ${b}`;
  }
  return s.replace(/\s+/g, ' ').trim();
}

const ZIP_RE = /C\.?\s*P\.?\s*:?\s*(\d{5})/;

/**
 * The holder's name and address rows: the row holding the postal code (`C.P. 00000`) and the rows
 * directly above it, left-aligned with it and contiguous (gap < 1.2 line heights), up to a labelled row.
 * The first row is the holder's name unless a NOMBRE/TITULAR label gives it. [] when no postal code is found.
 */
export function billAddressBlock(lines: readonly OcrLine[]): OcrLine[] {
  const zipIdx = lines.findIndex((l) => ZIP_RE.test(foldAccents(l.text)));
  if (zipIdx < 0) return [];
  const zipLine = lines[zipIdx]!;
  const h = zipLine.box.h;
  const block: OcrLine[] = [zipLine];
  let top = zipLine;
  for (let guard = 0; guard < 8; guard++) {
    const prev = lines
      .filter((l) => !block.includes(l) && l.box.y < top.box.y && Math.abs(l.box.x - zipLine.box.x) < 2 * h && top.box.y - (l.box.y + l.box.h) < 1.2 * h)
      .sort((a, b) => b.box.y - a.box.y)[0];
    if (!prev || ALL_LABELS.some((lb) => compact(prev.text).startsWith(compact(lb)))) break;
    block.unshift(prev);
    top = prev;
  }
  return block;
}

/**
 * Reads the bill fields.
 * @param type requested type (the result's `type`)
 * @throws OcrError `wrong_document_type` when the image holds no bill (an identity document, or no bill labels)
 */
export function parseBill(lines: readonly OcrLine[], type: BillType): BillFields {
  const labelCount = ['TOTAL A PAGAR', 'PERIODO', 'CUENTA', 'SERVICIO', 'FACTURA', 'LIMITE DE PAGO', 'C.P.'].filter((l) => lines.some((x) => containsLabel(x.text, l))).length;
  if (labelCount < 2) {
    if (lines.some((l) => containsLabel(l.text, 'CLAVE DE ELECTOR')) || lines.some((l) => /^[I1]DMEX/.test(compact(l.text))))
      throw new OcrError('wrong_document_type', 'The image is a voter credential; use /v1/ocr/extract/id.');
    throw new OcrError('wrong_document_type', `No ${type.replace('_', ' ')} labels (TOTAL A PAGAR, PERIODO, CUENTA...) were found.`);
  }
  const guessed = guessBillType(lines);
  if (guessed && guessed !== type) throw new OcrError('wrong_document_type', `The image looks like a ${guessed.replace('_', ' ')}, not a ${type.replace('_', ' ')}.`);

  const zipIdx = lines.findIndex((l) => ZIP_RE.test(foldAccents(l.text)));
  const zipCode = zipIdx >= 0 ? foldAccents(lines[zipIdx]!.text).match(ZIP_RE)![1]! : '';
  let name = '';
  const nameV = valueOf(lines, BILL_LABELS.name);
  if (nameV.values[0]) name = nameV.values[0];
  let fullAddress = '';
  const block = billAddressBlock(lines);
  if (block.length) {
    if (!name && block.length >= 2) name = block.shift()!.text;
    else if (name && block.length && compact(block[0]!.text) === compact(name)) block.shift();
    fullAddress = block.map((l) => l.text.trim()).join(', ');
  }

  const phoneV = valueOf(lines, BILL_LABELS.phone);
  let phone = '';
  for (const v of phoneV.values) if (!phone) phone = digitsRun(v.replace(/[()\-.]/g, ''), 10, 12);

  const acct = valueOf(lines, BILL_LABELS.accountNumber).values.map((v) => v.split(/\s{2,}/)[0]!.replace(/\s+/g, '').replace(/[^A-Z0-9-]/gi, ''))[0] ?? '';
  const serv = valueOf(lines, BILL_LABELS.serviceNumber).values.map((v) => v.replace(/\s+/g, '').replace(/[^A-Z0-9-]/gi, ''))[0] ?? '';
  const billN = valueOf(lines, BILL_LABELS.billNumber).values.map((v) => v.replace(/\s+/g, '').replace(/[^A-Z0-9-]/gi, ''))[0] ?? '';

  const periodV = valueOf(lines, BILL_LABELS.billingPeriod).values;
  const billingPeriod = periodIn(periodV.find((v) => dateIn(v)) ?? periodV[0] ?? '');

  let totalPayment = '';
  for (const v of valueOf(lines, BILL_LABELS.totalPayment).values) if (!totalPayment) totalPayment = money(v);

  let paymentLimitDate = '';
  for (const v of valueOf(lines, BILL_LABELS.paymentLimitDate).values) if (!paymentLimitDate) paymentLimitDate = dateIn(v);

  let barCode = '';
  for (const v of valueOf(lines, BILL_LABELS.barCode).values) if (!barCode) barCode = digitsRun(v, 12);
  if (!barCode) {
    // The human-readable digits printed under the bar code: the longest digit run of 20+ characters.
    for (const l of lines) {
      const d = digitsRun(l.text, 20, 60);
      if (d.length > barCode.length) barCode = d;
    }
  }
  return {
    name: name.replace(/\s+/g, ' ').trim(),
    fullAddress,
    zipCode,
    phone,
    accountNumber: acct,
    serviceNumber: serv,
    billNumber: billN,
    billingPeriod,
    totalPayment,
    paymentLimitDate,
    barCode,
  };
}
