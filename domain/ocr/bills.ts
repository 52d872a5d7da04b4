/**
 * Utility bills (spec "OCR address-proof result"): `electricity_bill`, `phone_bill`, `cable_bill`.
 * Fields are found from their printed labels (Spanish, as Mexican bills print them) and from content
 * patterns (postal code `C.P. 00000`, money, dates, long digit runs under a bar code), never from fixed
 * pixel positions, so the same reader serves the three providers and their layout revisions.
 */
import { below, rightOf, type LabelHit } from './layout.ts';
import { OcrError } from './errors.ts';
import { billAddress, billName, ZIP_RE } from './bill-address.ts';
import { snapStateAbbreviation, STATE_ABBREVIATIONS } from './lexicon.ts';
import { compact, containsLabel, editDistance, foldAccents, type OcrLine } from './text.ts';

/** The INE front parser shares the row spacing repair (`ine.ts`). */
export { glueFix } from './bill-address.ts';

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

/** Field keys that have a printed label. */
type LabelledField = 'name' | 'phone' | 'accountNumber' | 'serviceNumber' | 'billNumber' | 'billingPeriod' | 'totalPayment' | 'paymentLimitDate' | 'barCode';

/**
 * Label vocabulary per field (Spanish, as Mexican bills print them; accents, case and punctuation are
 * ignored). A line takes the field of the *longest* label it starts with, so `TELÉFONO DE SERVICIO`
 * (service) beats `TELÉFONO` (phone) and `TITULAR DE LA CUENTA` (name) beats `CUENTA`.
 */
export const BILL_LABELS: Record<LabelledField, readonly string[]> = {
  name: ['NOMBRE DEL CLIENTE', 'NOMBRE DEL TITULAR', 'NOMBRE', 'TITULAR DE LA CUENTA', 'TITULAR', 'CLIENTE', 'SUSCRIPTOR'],
  phone: ['TELEFONO', 'TEL. CONTACTO', 'TEL', 'NUMERO TELEFONICO'],
  accountNumber: ['NUMERO DE CUENTA', 'NO. DE CUENTA', 'CUENTA'],
  serviceNumber: ['NUMERO DE SERVICIO', 'NO. DE SERVICIO', 'TELEFONO DE SERVICIO', 'NO. DE SUSCRIPTOR', 'NUMERO DE SUSCRIPTOR', 'LINEA', 'CONTRATO'],
  billNumber: ['NUMERO DE FACTURA', 'NO. DE FACTURA', 'FOLIO FISCAL', 'FACTURA', 'FOLIO', 'NO. DE RECIBO'],
  billingPeriod: ['PERIODO FACTURADO', 'PERIODO DE FACTURACION', 'PERIODO', 'SERVICIO DEL'],
  totalPayment: ['TOTAL A PAGAR', 'MONTO A PAGAR', 'TOTAL'],
  paymentLimitDate: ['FECHA LIMITE DE PAGO', 'FECHA LIMITE', 'PAGAR ANTES DE', 'FECHA DE VENCIMIENTO', 'VENCE'],
  barCode: ['CODIGO DE BARRAS', 'REFERENCIA DE PAGO'],
};

const ALL_LABELS = Object.values(BILL_LABELS).flat();

/** The field whose label starts `text` (longest label wins; one OCR error per 5 characters tolerated). */
export function billLabelOf(text: string): { field: LabelledField; took: number } | null {
  const c = compact(text);
  let best: { field: LabelledField; took: number; score: number } | null = null;
  for (const [field, labels] of Object.entries(BILL_LABELS) as [LabelledField, readonly string[]][]) {
    for (const label of labels) {
      const l = compact(label);
      const tol = Math.floor(l.length / 5);
      // Long labels may also have lost two characters ("NOMBRE DECLENTE" for NOMBRE DEL CLIENTE).
      for (const len of l.length >= 10 ? [l.length, l.length - 1, l.length + 1, l.length - 2] : [l.length, l.length - 1, l.length + 1]) {
        if (len <= 0 || len > c.length) continue;
        const slice = c.slice(0, len);
        const d = editDistance(slice, l);
        if (d > tol) continue;
        // OCR glues values to labels ("TELEFON7221184885"): a slice ending in a digit where the label
        // ends in a letter has eaten the value's first digit; prefer the shorter reading.
        const eats = /\d$/.test(slice) && /[A-Z]$/.test(l) ? 1.5 : 0;
        const score = l.length - 2 * d - eats;
        if (!best || score > best.score) best = { field, took: len, score };
      }
    }
  }
  return best ? { field: best.field, took: best.took } : null;
}

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

/** Label lines of the page: line index -> field and the label's compacted length. */
function labelLines(lines: readonly OcrLine[]): Map<OcrLine, { field: LabelledField; took: number }> {
  const out = new Map<OcrLine, { field: LabelledField; took: number }>();
  for (const l of lines) {
    const m = billLabelOf(l.text);
    if (m) out.set(l, m);
  }
  return out;
}

/** Raw text after the first `took` compacted characters (the label), separators stripped. */
function afterLabel(text: string, took: number): string {
  let seen = 0;
  let i = 0;
  while (i < text.length && seen < took) {
    if (compact(text[i]!).length) seen++;
    i++;
  }
  return text.slice(i).replace(/^[\s:.#-]+/, '').trim();
}

/**
 * Candidate values of `field`, for each line labelled with it in reading order: the rest of the label's
 * box, the nearest unlabelled box to its right on the same row, the nearest unlabelled box below.
 */
function valuesOf(lines: readonly OcrLine[], labels: Map<OcrLine, { field: LabelledField; took: number }>, field: LabelledField): string[] {
  const out: string[] = [];
  for (const [line, m] of labels) {
    if (m.field !== field) continue;
    const hit: LabelHit = { index: lines.indexOf(line), line, rest: '', restRaw: '' };
    const rest = afterLabel(line.text, m.took);
    if (rest) out.push(rest);
    const unlabelled = lines.filter((l) => !labels.has(l));
    const r = rightOf(unlabelled, hit);
    if (r) out.push(r.text);
    // Values sit close under their labels on bills (tight rows): 0.3 label heights below.
    const b = below(unlabelled, hit, 0.3);
    if (b) out.push(b.text);
  }
  return out;
}

function digitsRun(s: string, min: number, max = 40): string {
  const m = s.replace(/(?<=\d)[Oo]|[Oo](?=\d)/g, '0').replace(/\s+/g, '').match(new RegExp(`\\d{${min},${max}}`));
  return m ? m[0] : '';
}

/** Amount as a plain decimal (`$3,611.45` -> `3611.45`); '' when none. */
export function money(s: string): string {
  const m = s.replace(/\s+/g, '').replace(/(?<=\d)[Oo]|[Oo](?=\d)/g, '0').match(/\$?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))?/);
  if (!m) return '';
  return `${m[1]!.replace(/,/g, '')}.${m[2] ?? '00'}`;
}

const MONTHS: Record<string, string> = { ENE: '01', FEB: '02', MAR: '03', ABR: '04', MAY: '05', JUN: '06', JUL: '07', AGO: '08', SEP: '09', SEPT: '09', OCT: '10', NOV: '11', DIC: '12' };
const DATE_NUM = /(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4}|\d{2})/;
/** Month abbreviations, also with the digit look-alikes OCR puts in them (`0CT`, `AG0`, `N0V`, `D1C`, `5EP`). */
const DATE_TXT = /(\d{1,2})\s*[/.-]?\s*(ENE|FEB|MAR|ABR|MAY|JUN|JUL|AG[O0]|[S5]EPT|[S5]EP|[O0]CT|N[O0]V|D[I1]C)[A-Z]*\.?\s*[/.-]?\s*(\d{4}|\d{2})/;
/** A month abbreviation as matched by DATE_TXT, look-alike digits read back as letters. */
const monthOf = (m: string): string => MONTHS[m.replace(/0/g, 'O').replace(/1/g, 'I').replace(/5/g, 'S')]!;

function iso(d: string, m: string, y: string): string {
  const year = y.length === 2 ? `20${y}` : y;
  const day = Number(d);
  const month = Number(m);
  if (month < 1 || month > 12 || day < 1 || day > 31) return '';
  return `${year}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
}

/**
 * First date in `s` as ISO `YYYY-MM-DD`: `16 ABR 2026`, `16-ABR-26`, `16/04/2026`, `22-0CT-24` (Spanish
 * month abbreviations, digit look-alikes in them read as letters; two-digit years are 20YY). '' when none.
 */
export function dateIn(s: string): string {
  const t = foldAccents(s).replace(/(?<=\d)[Oo](?=\d)/g, '0');
  const a = DATE_TXT.exec(t);
  const b = DATE_NUM.exec(t);
  if (a && (!b || a.index <= b.index)) return iso(a[1]!, monthOf(a[2]!), a[3]!);
  if (b) return iso(b[1]!, b[2]!, b[3]!);
  return '';
}

/** A billing period as `YYYY-MM-DD - YYYY-MM-DD`; '' when it does not hold two dates. */
export function periodIn(s: string): string {
  const t = foldAccents(s);
  const first = DATE_TXT.exec(t) ?? DATE_NUM.exec(t);
  if (!first) return '';
  const a = dateIn(t.slice(first.index));
  const rest = t.slice(first.index + first[0].length);
  const b = dateIn(rest);
  return a && b ? `${a} - ${b}` : '';
}

/** True when the row ends with a state abbreviation after a comma, point or space (`MÉRIDA, YUC`, `LEON.GTO`). */
function endsWithState(text: string): boolean {
  const m = /[\s.,]([A-Za-z]{2,5})\W*$/.exec(foldAccents(text));
  return !!m && (STATE_ABBREVIATIONS as readonly string[]).includes(snapStateAbbreviation(m[1]!.toUpperCase()));
}

/** Distinctive words of the holder labels (`BILL_LABELS.name`). */
const NAME_LABEL_WORDS = ['NOMBRE', 'CLIENTE', 'TITULAR', 'SUSCRIPTOR'];

/**
 * True when a line without digits is a holder label misread beyond {@link billLabelOf}'s tolerance:
 * it contains one of the label words (one error per six letters) or is one of them with up to one
 * error per three letters (`Thular`).
 */
export function looksLikeNameLabel(text: string): boolean {
  if (/\d/.test(text)) return false;
  const c = compact(text);
  return NAME_LABEL_WORDS.some((w) => containsLabel(text, w) || (c.length >= 4 && Math.abs(c.length - w.length) <= 2 && editDistance(c, w) <= Math.floor(w.length / 3)));
}

/**
 * The holder's name line and address rows. With a name label (NOMBRE, TITULAR, CLIENTE...): its value
 * line, then the rows below it, left-aligned with it, contiguous (gap < 1.5 line heights), up to a
 * labelled row. Without: the rows around the postal-code row (`C.P. 00000`), the first being the name.
 */
export function billTextRegions(lines: readonly OcrLine[]): { name: OcrLine | null; address: OcrLine[] } {
  const labels = labelLines(lines);
  const unlabelled = lines.filter((l) => !labels.has(l));
  const cy = (l: OcrLine) => l.box.y + l.box.h / 2;
  // The row under `c0` in the block whose left edge is `left`'s: centre lower by more than 0.3 of a line
  // height (OCR boxes are taller than the row pitch of a small print, and a larger name font sits close
  // under its label) and by less than 1.8 line heights, left edges within 2.5 line heights.
  const nextRow = (c0: OcrLine, left: OcrLine): OcrLine | undefined =>
    lines
      .filter((l) => l !== c0 && cy(l) > cy(c0) + 0.3 * c0.box.h && Math.abs(l.box.x - left.box.x) < 2.5 * c0.box.h && cy(l) - cy(c0) < 1.8 * Math.max(c0.box.h, l.box.h))
      .sort((p, q) => cy(p) - cy(q))[0];
  let name: OcrLine | null = null;
  for (const [line, m] of labels) {
    if (m.field !== 'name') continue;
    const hit: LabelHit = { index: 0, line, rest: '', restRaw: '' };
    if (afterLabel(line.text, m.took).length > 3) name = line;
    else {
      const under = nextRow(line, line);
      name = rightOf(unlabelled, hit) ?? (under && !labels.has(under) ? under : null);
    }
    if (name) break;
  }
  let start: OcrLine | null = name;
  if (!start) {
    const zip = lines.find((l) => ZIP_RE.test(foldAccents(l.text)));
    if (!zip) return { name: null, address: [] };
    // Walk up from the postal-code row to the top of its block: that row is the name, unless it is the
    // holder label itself, misread beyond the label tolerance ("MBRE DEL CLIENTE", "Thular").
    start = zip;
    for (;;) {
      const s0: OcrLine = start;
      const up: OcrLine | undefined = unlabelled
        .filter((l) => l !== s0 && cy(l) < cy(s0) && Math.abs(l.box.x - s0.box.x) < 2 * s0.box.h && cy(s0) - cy(l) < 1.8 * s0.box.h)
        .sort((p, q) => cy(q) - cy(p))[0];
      if (!up) break;
      start = up;
    }
    if (looksLikeNameLabel(start.text)) start = nextRow(start, start) ?? start;
    name = start;
  }
  const address: OcrLine[] = [];
  const top: OcrLine = start;
  let cur: OcrLine = start;
  for (let guard = 0; guard < 8; guard++) {
    const next = nextRow(cur, top);
    if (!next || labels.has(next)) break;
    // A row that carries a label (e.g. "Tel." left of its value) ends the address.
    if ([...labels.keys()].some((l) => Math.abs(cy(l) - cy(next)) < 0.5 * Math.min(l.box.h, next.box.h) && Math.abs(l.box.x - top.box.x) < 3 * top.box.h)) break;
    // A stray mark read as a row (a misread "Tel." label, a bar) is no address row.
    if (compact(next.text).length < 4) break;
    address.push(next);
    cur = next;
    // The row after the postal code that ends in a state abbreviation (`CITY, STATE`) ends the address.
    if (address.some((l) => l !== next && ZIP_RE.test(foldAccents(l.text))) && endsWithState(next.text)) break;
  }
  return { name, address };
}

/**
 * Reads the bill fields (normalised: phone 10 digits, amounts `1234.56`, dates ISO, period
 * `YYYY-MM-DD - YYYY-MM-DD`, address rows joined with `, `).
 * @param type requested type (the result's `type`)
 * @throws OcrError `wrong_document_type` when the image holds no bill (an identity document, or no bill labels)
 */
export function parseBill(ocrLines: readonly OcrLine[], type: BillType): BillFields {
  // Full-width punctuation of the CJK recogniser dictionary (`（722）`) folded to ASCII.
  const lines = ocrLines.map((l) => ({ ...l, text: l.text.normalize('NFKC') }));
  const labels = labelLines(lines);
  const fieldsSeen = new Set([...labels.values()].map((m) => m.field));
  if (fieldsSeen.size < 3) {
    if (lines.some((l) => containsLabel(l.text, 'CLAVE DE ELECTOR')) || lines.some((l) => /^[I1]DMEX/.test(compact(l.text))) || lines.some((l) => /^P<MEX/.test(l.text.replace(/\s/g, ''))))
      throw new OcrError('wrong_document_type', 'The image is an identity document; use /v1/ocr/extract/id.');
    throw new OcrError('wrong_document_type', `No ${type.replace('_', ' ')} labels (total, period, account...) were found.`);
  }
  const guessed = guessBillType(lines);
  if (guessed && guessed !== type) throw new OcrError('wrong_document_type', `The image looks like a ${guessed.replace('_', ' ')}, not a ${type.replace('_', ' ')}.`);

  const regions = billTextRegions(lines);
  const name = regions.name ? billName(regions.name.text) : '';
  const fullAddress = billAddress(regions.address.map((l) => l.text));
  const zipLine = regions.address.find((l) => ZIP_RE.test(foldAccents(l.text))) ?? lines.find((l) => ZIP_RE.test(foldAccents(l.text)));
  const zipCode = zipLine ? foldAccents(zipLine.text).match(ZIP_RE)![1]! : '';

  const first = (field: LabelledField, pick: (v: string) => string): string => {
    for (const v of valuesOf(lines, labels, field)) {
      const x = pick(v);
      if (x) return x;
    }
    return '';
  };
  const code = (v: string) => {
    const t = v.replace(/\s+/g, '').toUpperCase();
    return /^[A-Z0-9-]{4,}$/.test(t) && /\d/.test(t) ? t : '';
  };
  return {
    name,
    fullAddress,
    zipCode,
    phone: first('phone', (v) => {
      const d = v.replace(/[()\s.-]/g, '');
      return /^\d{10}$/.test(d) ? d : digitsRun(d, 10, 10);
    }),
    accountNumber: first('accountNumber', code),
    serviceNumber: first('serviceNumber', (v) => {
      const c = code(v);
      return c.replace(/-/g, '').length >= 6 ? c : '';
    }),
    billNumber: first('billNumber', code),
    // A misread label ("Penodo"): the billing period is the row that holds two dates.
    billingPeriod: first('billingPeriod', periodIn) || lines.map((l) => periodIn(l.text)).find(Boolean) || '',
    totalPayment: first('totalPayment', (v) => (/\d/.test(v) && /[$.,]/.test(v) ? money(v) : '')),
    paymentLimitDate: first('paymentLimitDate', dateIn),
    barCode: (() => {
      const labelled = first('barCode', (v) => digitsRun(v, 12, 60));
      if (labelled) return labelled;
      // The human-readable digits printed under the bar code: the longest run of 20+ digits on the page.
      let best = '';
      for (const l of lines) {
        const d = digitsRun(l.text, 20, 60);
        if (d.length > best.length) best = d;
      }
      return best;
    })(),
  };
}
