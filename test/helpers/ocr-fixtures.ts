/**
 * Small deterministic document renderer for the OCR unit/API tests (SVG -> PNG/JPEG with sharp/librsvg,
 * DejaVu fonts). The full synthetic generator with models A-G, photos and degradations lives in
 * `test/generators/` (wt-ocr-gen); this helper only needs to produce a few readable documents with known
 * ground truth quickly.
 */
import sharp from 'sharp';
import { buildIneMrz, buildTd3 } from '../../domain/mrz/index.ts';
import { facePhoto } from '../generators/faces.ts';
import { createRng } from '../generators/rng.ts';
import { image } from '../generators/svg.ts';

/** Ground truth of a rendered INE. */
export interface IneTruth {
  firstSurname: string;
  secondSurname: string;
  names: string;
  curp: string;
  claveElector: string;
  dateOfBirth: string;
  gender: 'H' | 'M';
  section: string;
  validFrom: string;
  validUntil: string;
  street: string;
  colony: string;
  zip: string;
  city: string;
  state: string;
  cic: string;
  idCiudadano: string;
}

export const SAMPLE_INE: IneTruth = {
  firstSurname: 'PEÑA',
  secondSurname: 'MUÑOZ',
  names: 'JOSÉ ÁNGEL',
  curp: 'PEMA900102HDFXXN05',
  claveElector: 'PEMUAN90010209H300',
  dateOfBirth: '1990-01-02',
  gender: 'H',
  section: '0423',
  validFrom: '2020',
  validUntil: '2030',
  street: 'AV REFORMA 123',
  colony: 'CENTRO',
  zip: '06000',
  city: 'CUAUHTEMOC',
  state: 'CDMX',
  cic: '123456789',
  idCiudadano: '123456789',
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function text(x: number, y: number, size: number, s: string, opts: { bold?: boolean; mono?: boolean } = {}): string {
  const family = opts.mono ? 'DejaVu Sans Mono' : 'DejaVu Sans';
  return `<text x="${x}" y="${y}" font-family="${family}" font-size="${size}"${opts.bold ? ' font-weight="bold"' : ''}>${esc(s)}</text>`;
}

async function render(svg: string, opts: { rotate?: number; jpeg?: number; blur?: number; background?: string } = {}): Promise<Buffer> {
  let img = sharp(Buffer.from(svg));
  if (opts.rotate) img = sharp(await img.png().toBuffer()).rotate(opts.rotate, { background: opts.background ?? '#5a5048' });
  if (opts.blur) img = sharp(await img.png().toBuffer()).blur(opts.blur);
  return opts.jpeg ? img.flatten({ background: '#ffffff' }).jpeg({ quality: opts.jpeg }).toBuffer() : img.png().toBuffer();
}

/** Renders an INE front (model G layout: no ESTADO/MUNICIPIO boxes) with a face photo (face-api's samples, `test/generators/faces.ts`). */
export async function renderIneFront(t: IneTruth = SAMPLE_INE, opts: { rotate?: number; jpeg?: number; blur?: number } = {}): Promise<Buffer> {
  const [d, m, y] = [t.dateOfBirth.slice(8, 10), t.dateOfBirth.slice(5, 7), t.dateOfBirth.slice(0, 4)];
  const photo = await facePhoto(createRng('ocr-fixture-photo'), 260, 320, false);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1100" height="700">
<rect width="100%" height="100%" fill="#eef0e6"/>
<rect x="0" y="0" width="1100" height="90" fill="#d7c7d9"/>
${text(40, 40, 22, 'MÉXICO', { bold: true })}
${text(40, 75, 26, 'INSTITUTO NACIONAL ELECTORAL', { bold: true })}
${text(560, 75, 20, 'CREDENCIAL PARA VOTAR', { bold: true })}
${image(40, 130, 260, 320, photo.png)}
${text(340, 140, 18, 'NOMBRE')}
${text(340, 172, 26, t.firstSurname, { bold: true })}
${text(340, 204, 26, t.secondSurname, { bold: true })}
${text(340, 236, 26, t.names, { bold: true })}
${text(880, 140, 18, 'SEXO')}
${text(950, 140, 22, t.gender, { bold: true })}
${text(340, 290, 18, 'DOMICILIO')}
${text(340, 320, 24, t.street, { bold: true })}
${text(340, 350, 24, `COL ${t.colony} ${t.zip}`, { bold: true })}
${text(340, 380, 24, `${t.city}, ${t.state}.`, { bold: true })}
${text(340, 440, 18, 'CLAVE DE ELECTOR')}
${text(560, 440, 22, t.claveElector, { bold: true })}
${text(340, 480, 18, 'CURP')}
${text(420, 480, 22, t.curp, { bold: true })}
${text(720, 480, 18, 'AÑO DE REGISTRO')}
${text(900, 480, 22, '2010 01', { bold: true })}
${text(340, 520, 18, 'FECHA DE NACIMIENTO')}
${text(580, 520, 22, `${d}/${m}/${y}`, { bold: true })}
${text(340, 560, 18, 'SECCIÓN')}
${text(440, 560, 22, t.section, { bold: true })}
${text(560, 560, 18, 'VIGENCIA')}
${text(670, 560, 22, `${t.validFrom} - ${t.validUntil}`, { bold: true })}
</svg>`;
  return render(svg, opts);
}

/** The three MRZ rows of `t`'s back. */
export function ineMrz(t: IneTruth = SAMPLE_INE): [string, string, string] {
  return buildIneMrz({
    cic: t.cic,
    section: t.section,
    identificadorCiudadano: t.idCiudadano,
    dateOfBirth: t.dateOfBirth,
    gender: t.gender,
    expiryYear: t.validUntil,
    firstSurname: t.firstSurname,
    secondSurname: t.secondSurname,
    names: t.names,
  });
}

/** Renders an INE back with its TD1 MRZ (monospace stands in for OCR-B). */
export async function renderIneBack(t: IneTruth = SAMPLE_INE, opts: { rotate?: number; jpeg?: number; mrz?: string[] } = {}): Promise<Buffer> {
  const rows = opts.mrz ?? ineMrz(t);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1100" height="700">
<rect width="100%" height="100%" fill="#eef0e6"/>
<rect x="60" y="60" width="300" height="200" fill="#222"/>
${text(420, 120, 18, 'INSTITUTO NACIONAL ELECTORAL')}
${text(420, 160, 16, 'Esta credencial es un documento público')}
${rows.map((r, i) => text(70, 520 + i * 52, 36, r, { mono: true })).join('\n')}
</svg>`;
  return render(svg, opts);
}

/** Renders a passport data page with a TD3 MRZ. */
export async function renderPassport(opts: { jpeg?: number } = {}): Promise<{ image: Buffer; mrz: [string, string] }> {
  const mrz = buildTd3({
    documentCode: 'P',
    issuingState: 'MEX',
    primaryIdentifier: 'GARCIA LOPEZ',
    secondaryIdentifier: 'MARIA FERNANDA',
    documentNumber: 'G12345678',
    nationality: 'MEX',
    dateOfBirth: '850315',
    sex: 'F',
    dateOfExpiry: '310101',
    personalNumber: '',
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1250" height="850">
<rect width="100%" height="100%" fill="#e9eef3"/>
${text(40, 50, 24, 'ESTADOS UNIDOS MEXICANOS  PASAPORTE / PASSPORT', { bold: true })}
<rect x="40" y="90" width="300" height="380" fill="#c99a7c"/>
<ellipse cx="190" cy="250" rx="90" ry="120" fill="#e0ac8a"/>
${text(380, 110, 16, 'Apellidos / Surname')}
${text(380, 140, 24, 'GARCÍA LÓPEZ', { bold: true })}
${text(380, 185, 16, 'Nombres / Given names')}
${text(380, 215, 24, 'MARÍA FERNANDA', { bold: true })}
${text(380, 260, 16, 'Nacionalidad / Nationality')}
${text(380, 290, 22, 'MEXICANA', { bold: true })}
${text(380, 335, 16, 'Fecha de nacimiento / Date of birth')}
${text(380, 365, 22, '15 03 1985', { bold: true })}
${text(380, 410, 16, 'CURP')}
${text(380, 440, 22, 'GALM850315MDFRPR06', { bold: true })}
${text(40, 700, 34, mrz[0], { mono: true })}
${text(40, 760, 34, mrz[1], { mono: true })}
</svg>`;
  return { image: await render(svg, opts), mrz };
}

/** Ground truth of a rendered bill. */
export const SAMPLE_BILL = {
  name: 'JUAN PEREZ LOPEZ',
  street: 'AV INSURGENTES SUR 1234',
  colony: 'COL DEL VALLE',
  zip: '03100',
  phone: '5512345678',
  accountNumber: '123456789012',
  serviceNumber: '987654321098',
  billNumber: 'A12345678',
  billingPeriod: '01 ENE 24 - 29 FEB 24',
  totalPayment: '$1,234.50',
  paymentLimitDate: '15 MAR 24',
  barCode: '01234567890123456789012345',
};

/** Renders an electricity-style bill (labels and values laid out like a real one). */
export async function renderBill(kind: 'electricity_bill' | 'phone_bill' | 'cable_bill' = 'electricity_bill', opts: { jpeg?: number } = {}): Promise<Buffer> {
  const b = SAMPLE_BILL;
  const header = kind === 'electricity_bill' ? 'SUMINISTRO DE ENERGIA ELECTRICA  CONSUMO KWH' : kind === 'phone_bill' ? 'SERVICIO TELEFONICO  LLAMADAS LOCALES' : 'TELEVISION POR CABLE E INTERNET  PAQUETE';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1300">
<rect width="100%" height="100%" fill="#ffffff"/>
${text(40, 60, 26, header, { bold: true })}
${text(40, 140, 22, b.name, { bold: true })}
${text(40, 172, 20, b.street)}
${text(40, 204, 20, b.colony)}
${text(40, 236, 20, `C.P. ${b.zip} CIUDAD DE MEXICO, CDMX`)}
${text(560, 140, 18, 'TOTAL A PAGAR:')}
${text(760, 140, 26, b.totalPayment, { bold: true })}
${text(560, 190, 18, 'FECHA LIMITE DE PAGO:')}
${text(800, 190, 20, b.paymentLimitDate)}
${text(40, 330, 18, 'NO. DE SERVICIO:')}
${text(260, 330, 20, b.serviceNumber)}
${text(40, 370, 18, 'NO. DE CUENTA:')}
${text(260, 370, 20, b.accountNumber)}
${text(40, 410, 18, 'FACTURA:')}
${text(260, 410, 20, b.billNumber)}
${text(40, 450, 18, 'TELEFONO:')}
${text(260, 450, 20, b.phone)}
${text(40, 490, 18, 'PERIODO FACTURADO:')}
${text(300, 490, 20, b.billingPeriod)}
<rect x="40" y="1100" width="700" height="80" fill="#000"/>
${text(40, 1220, 22, b.barCode, { mono: true })}
</svg>`;
  return render(svg, opts);
}
