import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { DeploymentError } from './errors.ts';
import { hasControlCharacters } from '../shared/text.ts';

/**
 * Platforms a deployment targets (the spec says only "string"; docs/deployments.md lists these):
 * `web` (a white-label web app), `ios`, `android` (mobile apps embedding the SDK), `api` (server-to-server only).
 */
export const PLATFORMS = ['web', 'ios', 'android', 'api'] as const;
export type DeploymentPlatform = (typeof PLATFORMS)[number];

/** Environments of a deployment (docs/deployments.md): `production`, `staging`, `development`. */
export const ENVIRONMENTS = ['production', 'staging', 'development'] as const;
export type DeploymentEnvironment = (typeof ENVIRONMENTS)[number];

/** `clientId`: the admin's own identifier of its client: 1-64 of `[A-Za-z0-9._-]`, starting with a letter or digit. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Normalises a hex colour: `#RGB` or `#RRGGBB` (case-insensitive) -> `#RRGGBB` upper case.
 * @throws DeploymentError `invalid_color`.
 */
export function normalizeHexColor(value: string, field = 'config.primaryColor'): string {
  const m = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.exec(value.trim());
  if (!m) throw new DeploymentError('invalid_color', `${field} must be a hex colour #RGB or #RRGGBB`, { field, value });
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return `#${hex.toUpperCase()}`;
}

/**
 * Checks the logo URL: absolute `https://`, no user or password, at most 2,048 characters. Reachability
 * and the address (SSRF guard) are checked when provisioning fetches it.
 * @returns the URL as serialised by WHATWG URL.
 * @throws DeploymentError `invalid_logo_url`.
 */
export function checkLogoUrl(value: string, field = 'config.logo'): string {
  const bad = (why: string) => new DeploymentError('invalid_logo_url', `${field} ${why}`, { field });
  if (value.length > 2048) throw bad('is longer than 2048 characters');
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw bad('is not an absolute URL');
  }
  if (u.protocol !== 'https:') throw bad('must use https');
  if (u.username || u.password) throw bad('must not carry credentials');
  if (!u.hostname) throw bad('has no host');
  return u.toString();
}

/** A validated domain: its ASCII (Punycode) form, used for matching and storage, and its Unicode form for display. */
export interface NormalizedDomain {
  ascii: string;
  unicode: string;
}

/**
 * Validates and normalises a domain name with IDNA (UTS #46 processing, as WHATWG URL does:
 * `node:url` `domainToASCII`): lower case, Punycode for non-ASCII labels (`café.mx` -> `xn--caf-dma.mx`).
 * Then the DNS host-name rules (RFC 1035 2.3.4 / RFC 1123 2.1): 253 characters at most, labels of
 * 1-63 letters, digits or hyphens not starting or ending with a hyphen, two labels at least, a
 * top-level label that is not all digits; IP addresses, ports, paths and a trailing dot are refused.
 * @throws DeploymentError `invalid_domain`.
 */
export function normalizeDomain(value: string, field = 'domain'): NormalizedDomain {
  const bad = (why: string) => new DeploymentError('invalid_domain', `${field} ${why}`, { field, value });
  const raw = value.trim();
  if (!raw) throw bad('is empty');
  if (raw.length > 253 * 4) throw bad('is too long');
  if (/[/:?#@\s\\]/.test(raw)) throw bad('must be a bare domain name (no scheme, port, path or spaces)');
  if (raw.endsWith('.')) throw bad('must not end with a dot');
  if (isIP(raw.replace(/^\[|\]$/g, '')) !== 0) throw bad('must be a domain name, not an IP address');
  const ascii = domainToASCII(raw);
  if (!ascii) throw bad('is not a valid internationalised domain name (IDNA)');
  if (ascii.length > 253) throw bad('is longer than 253 characters (in its ASCII form)');
  const labels = ascii.split('.');
  if (labels.length < 2) throw bad('needs at least two labels (e.g. kyc.example.mx)');
  for (const label of labels) {
    if (label.length < 1 || label.length > 63) throw bad('has a label that is empty or longer than 63 characters');
    if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(label)) throw bad(`has an invalid label "${label}" (letters, digits and inner hyphens only)`);
  }
  if (/^[0-9]+$/.test(labels.at(-1)!)) throw bad('must not end in an all-numeric label');
  return { ascii, unicode: domainToUnicode(ascii) || ascii };
}

/**
 * The ASCII domain a request's `Host` header names (port and trailing dot removed, IDNA applied), or null
 * when it is not a domain name (an IP address, empty, invalid).
 */
export function domainOfHost(host: string | undefined): string | null {
  if (!host) return null;
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) return null; // IPv6 literal
  h = h.replace(/:\d+$/, '').replace(/\.$/, '');
  try {
    return normalizeDomain(h).ascii;
  } catch {
    return null;
  }
}

/**
 * Free text (company and client names): trimmed, 1-`max` characters, no control characters.
 * @throws DeploymentError `invalid_request`.
 */
export function checkText(value: string, field: string, max: number): string {
  const t = value.trim();
  if (!t || t.length > max) throw new DeploymentError('validation_error', `${field} must be 1-${max} characters`, { field });
  if (hasControlCharacters(t)) throw new DeploymentError('validation_error', `${field} must not contain control characters`, { field });
  return t;
}

/** @throws DeploymentError `invalid_request` when `clientId` does not match {@link CLIENT_ID_PATTERN}. */
export function checkClientId(value: string): string {
  if (!CLIENT_ID_PATTERN.test(value)) {
    throw new DeploymentError('validation_error', 'clientId must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit', {
      field: 'clientId',
    });
  }
  return value;
}
