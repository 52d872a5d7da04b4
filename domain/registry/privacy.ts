/**
 * Personal data hygiene for registry lookups: a keyed request fingerprint for events (so an auditor
 * holding the key can recognise a lookup without the log holding the person's data), and masking for
 * log lines.
 */
import { createHmac } from 'node:crypto';
import type { CurpLookupRequest, VoterLookupRequest } from '../../infra/ports/registry-provider.ts';

function canonical(parts: readonly (string | undefined)[]): string {
  return parts.map((p) => (p ?? '').normalize('NFC').trim().toUpperCase().replace(/\s+/g, ' ')).join('\u001f');
}

/**
 * HMAC-SHA256 (RFC 2104) of the canonical request, hex, first 32 characters (128 bits). Keyed because
 * the inputs (names, dates, 9-digit numbers) are guessable: a plain hash could be reversed by trying
 * candidates. Equal requests (case/space-insensitive) give equal fingerprints under one key.
 */
export function lookupFingerprint(key: string | Uint8Array, operation: 'renapo.get-curp', request: CurpLookupRequest): string;
/** Fingerprint of a voter-list request (see the get-curp overload). */
export function lookupFingerprint(key: string | Uint8Array, operation: 'ine.validate-voter-list', request: VoterLookupRequest): string;
/** Implementation of the overloads above. */
export function lookupFingerprint(key: string | Uint8Array, operation: string, request: CurpLookupRequest | VoterLookupRequest): string {
  const parts =
    'cic' in request
      ? [operation, request.cic, request.identificadorCiudadano, request.ocr]
      : [operation, request.nombres, request.primerApellido, request.segundoApellido, request.sexo, request.fechaNacimiento, request.claveEntidad];
  return createHmac('sha256', key).update(canonical(parts)).digest('hex').slice(0, 32);
}

/** `HEGG560427MVZRRL04` -> `HE**************04`: enough to correlate by eye, not to identify. */
export function maskCurp(curp: string): string {
  if (curp.length <= 4) return '*'.repeat(curp.length);
  return curp.slice(0, 2) + '*'.repeat(curp.length - 4) + curp.slice(-2);
}

/** `123456789` -> `*****6789`: digits of credential numbers (CIC, OCR, citizen identifier). */
export function maskDigits(value: string, keep = 4): string {
  return value.length <= keep ? '*'.repeat(value.length) : '*'.repeat(value.length - keep) + value.slice(-keep);
}

/** `María` -> `M****`. */
export function maskName(name: string): string {
  const chars = [...name.trim()];
  return chars.length ? chars[0] + '*'.repeat(chars.length - 1) : '';
}
