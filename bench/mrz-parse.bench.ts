/**
 * Throughput of the MRZ engine (`domain/mrz`): parsing clean TD1 (INE) and TD3 MRZs, and parsing
 * OCR-corrupted ones (confusable characters that the check-digit-guided correction repairs).
 * Prints microseconds per MRZ (mean over the run, after a warm-up).
 *
 *   node --import tsx bench/mrz-parse.bench.ts [--n 20000]
 */
import { parseArgs } from 'node:util';
import { buildIneMrz, buildTd3, parseMrz } from '../domain/mrz/index.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '20000' } } });
const n = Number(values.n);

const ine = buildIneMrz({ cic: '114606536', section: '5308', identificadorCiudadano: '105793108', dateOfBirth: '1987-03-09', gender: 'H', expiryYear: '2031', firstSurname: 'MUÑOZ', secondSurname: 'PEÑA', names: 'JOSÉ ÁNGEL' });
const td3 = buildTd3({ documentCode: 'P', issuingState: 'MEX', primaryIdentifier: 'HERNANDEZ LOPEZ', secondaryIdentifier: 'SOFIA', documentNumber: 'G12345678', nationality: 'MEX', dateOfBirth: '900101', sex: 'F', dateOfExpiry: '300101', emptyPersonalNumberCheck: '0' });
// OCR-style confusions: digits read as letters everywhere except in names, where O reads as 0.
const corrupt = (lines: readonly string[]) => lines.map((l, i) => (i === lines.length - 1 && lines.length === 3 ? l.replace(/O/g, '0') : l.replace(/0/g, 'O').replace(/1/g, 'I').replace(/8/g, 'B')));
// TD3 with its alphanumeric document number left intact (two confusions there, I/1 and B/8, have
// several readings that satisfy both check digits, and the engine refuses to guess).
const corruptKeepDocNumber = (lines: readonly string[]) => [lines[0]!.replace(/O/g, '0'), lines[1]!.slice(0, 10) + corrupt([lines[1]!.slice(10)])[0]];
const sets: Array<[string, readonly string[]]> = [
  ['INE TD1 clean', ine], ['INE TD1 corrupted', corrupt(ine)], ['TD3 clean', td3], ['TD3 corrupted', corruptKeepDocNumber(td3)], ['TD3 doc no. corrupted', corrupt(td3)],
];
for (const [label, lines] of sets) {
  for (let i = 0; i < 2000; i++) parseMrz(lines);
  const t0 = performance.now();
  let valid = 0;
  for (let i = 0; i < n; i++) if (parseMrz(lines, { referenceYear: 2026 }).valid) valid++;
  const us = ((performance.now() - t0) * 1000) / n;
  console.log(`${label.padEnd(22)} ${us.toFixed(1)} us/MRZ  valid ${((100 * valid) / n).toFixed(0)}%`);
}
