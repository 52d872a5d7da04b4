/**
 * CSV of usage exports: RFC 4180 (fields separated by commas, records by CRLF, a field holding a comma,
 * double quote, CR or LF enclosed in double quotes with inner quotes doubled), UTF-8 with a byte-order
 * mark so spreadsheet programs detect the encoding, and CSV-injection neutralisation as OWASP
 * recommends ("CSV Injection"): a text cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with
 * a single quote so no formula is evaluated. Numbers are written as numbers.
 */
export const UTF8_BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: numbers as they are, null/undefined as empty, text neutralised then quoted when needed. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated. */
export const csvRow = (values: readonly unknown[]): string => `${values.map(csvCell).join(',')}\r\n`;
