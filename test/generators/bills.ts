/**
 * Synthetic utility bills of the three neutral types of the spec (electricity, phone, cable),
 * each with two layouts that differ in label wording, block order and placement, so a parser
 * must read labels and layout rather than fixed positions. Letter paper at ~130 dpi
 * (1100 x 1424 px). Printed values vary in format (dates, amounts, phone grouping); the ground
 * truth holds normalised values (see docs/ocr-synthetic.md).
 */
import { itfSvg } from './barcode.ts';
import type { Person } from './person.ts';
import type { Rng } from './rng.ts';
import { FONT, guilloche, text } from './svg.ts';

/** The three bill types (spec "OCR address-proof result"). */
export const BILL_TYPES = ['electricity_bill', 'phone_bill', 'cable_bill'] as const;
export type BillType = (typeof BILL_TYPES)[number];

/** Normalised bill values (the ground-truth `fields`). */
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

/** A bill as printed plus its normalised values. */
export interface Bill {
  readonly type: BillType;
  readonly layout: 'A' | 'B';
  readonly fields: BillFields;
  /** Strings as printed for the fields whose printed form differs from the normalised one. */
  readonly printed: Readonly<Record<string, string>>;
}

const MES = ['ENE', 'FEB', 'MAR', 'ABR', 'MAY', 'JUN', 'JUL', 'AGO', 'SEP', 'OCT', 'NOV', 'DIC'];

function addDays(iso: string, days: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function fmtDate(iso: string, style: number): string {
  const [y, m, d] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
  if (style === 0) return `${d} ${MES[Number(m) - 1]} ${y}`;
  if (style === 1) return `${d}/${m}/${y}`;
  return `${d}-${MES[Number(m) - 1]}-${y.slice(2)}`;
}

function fmtMoney(cents: number): string {
  const pesos = Math.floor(cents / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `$${pesos}.${String(cents % 100).padStart(2, '0')}`;
}

/** Draws a bill's values for `person`. */
export function randomBill(rng: Rng, person: Person, type: BillType): Bill {
  const layout = rng.chance(0.5) ? 'A' : 'B';
  const a = person.address;
  const name = `${person.names} ${person.firstSurname} ${person.secondSurname}`;
  const start = `${rng.int(2024, 2026)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
  const days = type === 'electricity_bill' ? 61 : rng.pick([29, 30]);
  const end = addDays(start, days);
  const limit = addDays(end, rng.int(10, 20));
  const cents = rng.int(9900, 450000);
  const dateStyle = rng.int(0, 2);
  const serviceNumber = type === 'electricity_bill' ? rng.digits(12) : type === 'phone_bill' ? person.phone : rng.digits(8);
  const accountNumber = type === 'electricity_bill' ? `${rng.digits(2)}${rng.pick(['DA', 'DB', 'DC'])}${rng.digits(2)}${rng.pick(['A', 'B', 'C', 'D'])}${rng.digits(9)}` : type === 'phone_bill' ? rng.digits(12) : rng.digits(10);
  const billNumber = `${rng.pick(['A', 'B', 'F', 'FE'])}${rng.digits(rng.int(7, 9))}`;
  const barCode = `${serviceNumber.replace(/\D/g, '').slice(-10).padStart(10, '0')}${limit.slice(2, 4)}${limit.slice(5, 7)}${limit.slice(8, 10)}${String(cents).padStart(8, '0')}${rng.digits(2)}`;
  const phonePrinted = rng.pick([person.phone, `${person.phone.slice(0, 2)} ${person.phone.slice(2, 6)} ${person.phone.slice(6)}`, `(${person.phone.slice(0, 3)}) ${person.phone.slice(3, 6)} ${person.phone.slice(6)}`]);
  const fields: BillFields = {
    name,
    fullAddress: `${a.streetAndNumber}, ${a.colony}, C.P. ${a.zipCode}, ${a.city}, ${a.state}`,
    zipCode: a.zipCode,
    phone: person.phone,
    accountNumber,
    serviceNumber,
    billNumber,
    billingPeriod: `${start} - ${end}`,
    totalPayment: (cents / 100).toFixed(2),
    paymentLimitDate: limit,
    barCode,
  };
  return {
    type, layout, fields,
    printed: {
      billingPeriod: `${fmtDate(start, dateStyle)} - ${fmtDate(end, dateStyle)}`,
      totalPayment: fmtMoney(cents),
      paymentLimitDate: fmtDate(limit, dateStyle),
      phone: phonePrinted,
    },
  };
}

const W = 1100;
const H = 1424;

interface Style {
  company: string;
  slogan: string;
  color: string;
  labels: Record<'name' | 'service' | 'account' | 'bill' | 'period' | 'total' | 'limit' | 'phone', string>;
}

const STYLES: Record<BillType, Record<'A' | 'B', Style>> = {
  electricity_bill: {
    A: { company: 'ENERGÍA ELÉCTRICA NACIONAL', slogan: 'Suministro de energía eléctrica', color: '#0b6e4f', labels: { name: 'NOMBRE', service: 'NO. DE SERVICIO', account: 'CUENTA', bill: 'NO. DE FACTURA', period: 'PERIODO FACTURADO', total: 'TOTAL A PAGAR', limit: 'FECHA LÍMITE DE PAGO', phone: 'TELÉFONO' } },
    B: { company: 'Energía Eléctrica Nacional', slogan: 'Aviso-recibo de consumo', color: '#14532d', labels: { name: 'Titular', service: 'Número de servicio', account: 'Número de cuenta', bill: 'Folio', period: 'Periodo', total: 'Total a pagar', limit: 'Pagar antes de', phone: 'Tel.' } },
  },
  phone_bill: {
    A: { company: 'TELEFONÍA NACIONAL', slogan: 'Estado de cuenta de servicios de telecomunicaciones', color: '#1d4ed8', labels: { name: 'CLIENTE', service: 'TELÉFONO DE SERVICIO', account: 'NÚMERO DE CUENTA', bill: 'FACTURA', period: 'PERIODO DE FACTURACIÓN', total: 'TOTAL A PAGAR', limit: 'PAGAR ANTES DE', phone: 'TEL. CONTACTO' } },
    B: { company: 'Telefonía Nacional', slogan: 'Tu estado de cuenta', color: '#1e3a8a', labels: { name: 'Nombre del cliente', service: 'Línea', account: 'Cuenta', bill: 'No. de factura', period: 'Periodo', total: 'Total', limit: 'Fecha límite de pago', phone: 'Teléfono' } },
  },
  cable_bill: {
    A: { company: 'CABLE Y REDES DEL VALLE', slogan: 'Televisión · Internet · Telefonía', color: '#b91c1c', labels: { name: 'SUSCRIPTOR', service: 'NO. DE SUSCRIPTOR', account: 'NO. DE CUENTA', bill: 'FOLIO FISCAL', period: 'PERIODO', total: 'TOTAL A PAGAR', limit: 'FECHA DE VENCIMIENTO', phone: 'TELÉFONO' } },
    B: { company: 'Cable y Redes del Valle', slogan: 'Resumen de tu cuenta', color: '#7c2d12', labels: { name: 'Titular de la cuenta', service: 'Contrato', account: 'Cuenta', bill: 'Factura', period: 'Servicio del', total: 'Monto a pagar', limit: 'Fecha límite', phone: 'Tel.' } },
  },
};

/** Renders a bill as SVG. */
export function billSvg(rng: Rng, b: Bill, person: Person): { svg: string } {
  const st = STYLES[b.type][b.layout];
  const f = b.fields;
  const a = person.address;
  const j = () => rng.int(-6, 6);
  const lab = (x: number, y: number, s: string, size = 17) => text(x, y, `${s}${b.layout === 'A' ? ':' : ''}`, { size, fill: '#555', weight: b.layout === 'A' ? 'bold' : 'normal' });
  const val = (x: number, y: number, s: string, size = 21) => text(x, y, s, { size, weight: 'bold', family: FONT.sans });
  let s = rng.chance(0.3) ? guilloche(rng, W, H, '#ffffff', '#f6f6f0', '#e6e6e0') : `<rect width="${W}" height="${H}" fill="#fdfdfb"/>`;
  // Header
  if (b.layout === 'A') {
    s += `<rect x="0" y="0" width="${W}" height="120" fill="${st.color}"/>`;
    s += text(40, 62, st.company, { size: 36, weight: 'bold', fill: '#fff' }) + text(40, 98, st.slogan, { size: 18, fill: '#e6f2ec' });
  } else {
    s += `<rect x="40" y="40" width="90" height="90" rx="45" fill="${st.color}"/>`;
    s += text(150, 85, st.company, { size: 34, weight: 'bold', fill: st.color }) + text(150, 118, st.slogan, { size: 18, fill: '#444' });
    s += `<line x1="40" y1="150" x2="${W - 40}" y2="150" stroke="${st.color}" stroke-width="3"/>`;
  }
  const addr = [a.streetAndNumber, a.colony, `C.P. ${a.zipCode}`, `${a.city}, ${a.state}`];
  // Customer block
  const cx = (b.layout === 'A' ? 40 : 540) + j();
  let cy = (b.layout === 'A' ? 180 : 200) + j();
  s += lab(cx, cy, st.labels.name);
  s += val(cx, cy + 30, f.name, b.layout === 'A' ? 22 : 20);
  addr.forEach((l, i) => (s += text(cx, cy + 62 + i * 28, l, { size: 19 })));
  cy += 62 + addr.length * 28 + 10;
  // Value after the label: DejaVu Sans 17 px advances ~11.5 px per character (bold).
  s += lab(cx, cy, st.labels.phone) + val(cx + Math.round((st.labels.phone.length + 1) * 11.5) + 12, cy, b.printed.phone!, 19);
  // Total box
  const tx = (b.layout === 'A' ? 640 : 40) + j();
  const ty = (b.layout === 'A' ? 170 : 200) + j();
  s += `<rect x="${tx}" y="${ty}" width="420" height="190" rx="10" fill="#f1f5f4" stroke="${st.color}" stroke-width="2"/>`;
  s += lab(tx + 20, ty + 40, st.labels.total, 20) + text(tx + 20, ty + 100, b.printed.totalPayment!, { size: 48, weight: 'bold', fill: st.color });
  s += lab(tx + 20, ty + 145, st.labels.limit, 17) + val(tx + 20, ty + 172, b.printed.paymentLimitDate!, 21);
  // Account details
  const dx = 40 + j();
  let dy = 470 + j();
  const rows: Array<[string, string]> = [
    [st.labels.service, f.serviceNumber], [st.labels.account, f.accountNumber], [st.labels.bill, f.billNumber], [st.labels.period, b.printed.billingPeriod!],
  ];
  if (b.layout === 'B') rows.reverse();
  s += `<rect x="${dx - 10}" y="${dy - 35}" width="${W - 60}" height="${rows.length * 42 + 20}" fill="none" stroke="#ccc"/>`;
  for (const [l, v] of rows) {
    s += lab(dx + 10, dy, l, 18) + val(dx + 400, dy, v, 21);
    dy += 42;
  }
  // Consumption / services table (decoration with numbers that are not fields)
  dy += 50;
  s += text(dx, dy, b.type === 'electricity_bill' ? 'Historial de consumo (kWh)' : 'Detalle de cargos', { size: 20, weight: 'bold', fill: st.color });
  dy += 20;
  if (b.type === 'electricity_bill') {
    for (let i = 0; i < 6; i++) {
      const h = rng.int(40, 180);
      s += `<rect x="${dx + 30 + i * 110}" y="${dy + 200 - h}" width="60" height="${h}" fill="${st.color}" opacity="0.7"/>`;
      s += text(dx + 60 + i * 110, dy + 225, `${MES[(i * 2) % 12]} ${rng.int(100, 900)}`, { size: 15, anchor: 'middle' });
    }
    dy += 260;
  } else {
    const items = b.type === 'phone_bill' ? ['Renta mensual', 'Llamadas locales', 'Larga distancia', 'Internet', 'IVA'] : ['Paquete de TV', 'Internet 100 Mbps', 'Renta de equipo', 'IVA'];
    for (const it of items) {
      s += text(dx + 20, dy + 30, it, { size: 18 }) + text(W - 80, dy + 30, fmtCents(rng.int(1000, 90000)), { size: 18, anchor: 'end' });
      dy += 36;
    }
    dy += 40;
  }
  // Payment stub with bar code
  dy = Math.max(dy, 1150) + j();
  s += `<line x1="30" y1="${dy - 30}" x2="${W - 30}" y2="${dy - 30}" stroke="#999" stroke-dasharray="8 6"/>`;
  s += text(40, dy, 'Talón de pago', { size: 16, fill: '#666' });
  const bc = itfSvg(f.barCode, 60, dy + 20, 110, 2);
  s += bc.svg + text(60 + bc.width / 2, dy + 160, f.barCode, { size: 20, anchor: 'middle', family: FONT.mono });
  s += text(W - 60, dy + 70, st.labels.total, { size: 16, anchor: 'end', fill: '#666' }) + text(W - 60, dy + 110, b.printed.totalPayment!, { size: 30, weight: 'bold', anchor: 'end' });
  return { svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${s}</svg>` };
}

function fmtCents(c: number): string {
  return fmtMoney(c);
}
