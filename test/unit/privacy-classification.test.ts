/**
 * The personal-data inventory cannot drift: every event type the code appends, and every top-level field
 * of its data, must be classified in `domain/privacy/classification.ts`.
 *
 * Event types and fields are discovered from the source, not from the map: the scanner reads every
 * non-test module under apps/, domain/, workflows/, projections/ and infra/ and collects
 * - `{ type: 'X', data: {...} }` / `type: 'X'; data: {...}` (declarations and inline appends), with the
 *   data's fields from the literal or from the interface it names in the same file;
 * - `{ type: CONSTANT, data }` with CONSTANT an exported string constant (fields from the `...Data`
 *   interface of the module that exports it);
 * - every exported `*_EVENT_TYPES` registry (imported: what projections and subscriptions follow);
 * - webhook catalog events published with `publishWebhookEvent(tenant, 'X', {...})`, and the signing
 *   webhook bodies built as `data = {...}` per `case 'X':`;
 * - the signing events' fields from `SigningEventData` (each `name: Base & {...}`).
 * A type or field whose shape the scanner cannot see is still checked at run time: the sealing event
 * store refuses unclassified types and fields under `SELLO_PRIVACY_STRICT=1` (the test suite's setting).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_CLASSIFICATION, isPersonal, personalFields } from '../../domain/privacy/classification.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DIRS = ['apps', 'domain', 'workflows', 'projections', 'infra'];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Source without comments (string contents kept). */
function stripComments(src: string): string {
  let out = '';
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const q = c;
      let j = i + 1;
      while (j < src.length && src[j] !== q) j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j;
    } else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 1;
    } else out += c;
  }
  return out;
}

/** Index just past the brace matching the `{` at `open`. */
function matchBrace(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const q = c;
      i++;
      while (i < src.length && src[i] !== q) i += src[i] === '\\' ? 2 : 1;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return src.length;
}

/** Top-level keys of the object literal or type literal `{...}` starting at `open` (spread literals included). */
function keysOf(src: string, open: number): string[] {
  const body = src.slice(open + 1, matchBrace(src, open) - 1);
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const q = c;
      i++;
      while (i < body.length && body[i] !== q) i += body[i] === '\\' ? 2 : 1;
    } else if ('{[('.includes(c)) depth++;
    else if ('}])'.includes(c)) depth--;
    else if (c === '<' && /\w$/.test(body.slice(0, i))) depth++; // a type argument list
    else if (c === '>' && body[i - 1] !== '=' && depth > 0 && /[\w>\]]$/.test(body.slice(0, i))) depth--;
    else if ((c === ',' || c === ';') && depth === 0) {
      segments.push(body.slice(start, i));
      start = i + 1;
    }
  }
  segments.push(body.slice(start));
  const keys: string[] = [];
  for (const raw of segments) {
    const s = raw.trim();
    if (!s) continue;
    if (s.startsWith('...')) {
      // `...(cond ? { a: x } : {})`: the keys of the literals it may spread.
      for (let i = s.indexOf('{'); i >= 0; i = s.indexOf('{', matchBrace(s, i))) keys.push(...keysOf(s, i));
      continue;
    }
    const m = /^(?:readonly\s+)?['"]?([A-Za-z_$][\w$]*)['"]?\s*\??\s*(?::|\(|$)/.exec(s);
    if (m) keys.push(m[1]!);
  }
  return keys;
}

interface Discovered {
  types: Map<string, Set<string>>; // type -> fields seen (empty set: fields not seen statically)
  where: Map<string, string>;
}

function add(d: Discovered, type: string, fields: string[] | null, file: string): void {
  if (!d.types.has(type)) d.types.set(type, new Set());
  if (!d.where.has(type)) d.where.set(type, relative(ROOT, file));
  for (const f of fields ?? []) d.types.get(type)!.add(f);
}

/** Fields of `data: <...>` at `at` in `src`: an inline literal, a named interface/type of the same file, `X & {...}`. */
function dataFields(src: string, at: number): string[] | null {
  const rest = src.slice(at);
  const lit = /^\s*\{/.exec(rest);
  if (lit) return keysOf(src, at + rest.indexOf('{'));
  const named = /^\s*([A-Z]\w*)\b(?!\[)/.exec(rest);
  if (named) return namedTypeFields(src, named[1]!);
  return null;
}

/** Fields of an interface or object type alias declared in `src` (with `A & B & {...}` parts followed). */
function namedTypeFields(src: string, name: string): string[] | null {
  const decl = new RegExp(`(?:interface\\s+${name}(?:\\s+extends\\s+([\\w\\s,]+))?\\s*\\{|type\\s+${name}\\s*=\\s*)`).exec(src);
  if (!decl) return null;
  const at = decl.index + decl[0].length;
  if (decl[0].startsWith('interface')) {
    const own = keysOf(src, at - 1);
    const parents = (decl[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean).flatMap((p) => namedTypeFields(src, p) ?? []);
    return [...parents, ...own];
  }
  return intersectionFields(src, at);
}

/** Fields of `A & B & { ... }` starting at `at`. */
function intersectionFields(src: string, at: number): string[] | null {
  const out: string[] = [];
  let i = at;
  for (;;) {
    const rest = src.slice(i);
    const lit = /^\s*\{/.exec(rest);
    if (lit) {
      const open = i + rest.indexOf('{');
      out.push(...keysOf(src, open));
      i = matchBrace(src, open);
    } else {
      const named = /^\s*([A-Z]\w*)/.exec(rest);
      if (!named) return out.length ? out : null;
      out.push(...(namedTypeFields(src, named[1]!) ?? []));
      i += named[0].length;
    }
    const amp = /^\s*&/.exec(src.slice(i));
    if (!amp) return out;
    i += amp[0].length;
  }
}

async function discover(): Promise<Discovered> {
  const d: Discovered = { types: new Map(), where: new Map() };
  const files = DIRS.flatMap((dir) => sourceFiles(join(ROOT, dir)));
  const sources = new Map(files.map((f) => [f, stripComments(readFileSync(f, 'utf8'))]));
  // Exported string constants, e.g. DELIVERY_ATTEMPTED = 'webhook.delivery.attempted'.
  const constants = new Map<string, { value: string; file: string }>();
  for (const [file, src] of sources) {
    for (const m of src.matchAll(/export const ([A-Z][A-Z0-9_]+)\s*=\s*'([^']+)'/g)) constants.set(m[1]!, { value: m[2]!, file });
  }
  for (const [file, src] of sources) {
    // 1. Literal types beside their data.
    for (const m of src.matchAll(/\btype:\s*'([^'\s]+)'\s*[;,]\s*data\s*:/g)) add(d, m[1]!, dataFields(src, m.index + m[0].length), file);
    for (const m of src.matchAll(/\btype:\s*'([^'\s]+)'\s*[;,]\s*data\s*[,}]/g)) add(d, m[1]!, null, file);
    // 2. Constant types.
    for (const m of src.matchAll(/\btype:\s*([A-Z][A-Z0-9_]+)\s*,\s*data\b/g)) {
      const c = constants.get(m[1]!);
      if (!c) continue;
      const defining = sources.get(c.file)!;
      const ifaces = [...defining.matchAll(/export interface (\w+Data)\b/g)].map((x) => x[1]!);
      add(d, c.value, ifaces.length === 1 ? namedTypeFields(defining, ifaces[0]!) : null, file);
    }
    // 3. Registries: exported *_EVENT_TYPES, imported for their values.
    if (/export const \w*EVENT_TYPES\b/.test(src)) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        if (/EVENT_TYPES$/.test(name) && Array.isArray(value)) for (const t of value) add(d, String(t), null, file);
      }
    }
    // 4. Webhook events published with a literal type and body.
    for (const m of src.matchAll(/publishWebhookEvent\(\s*[^,]+,\s*'([^']+)'\s*,\s*\{/g)) add(d, m[1]!, keysOf(src, m.index + m[0].length - 1), file);
    for (const m of src.matchAll(/case '([a-z]+\.[a-z.]+)':\s*\{?[^{}]*?\bdata\s*=\s*\{/g)) add(d, m[1]!, keysOf(src, m.index + m[0].length - 1), file);
    // 5. Signing events: `SigningEventData` members (`name: Base & {...}`), typed `signing.${name}`.
    const sed = /export interface SigningEventData\s*\{/.exec(src);
    if (sed) {
      const open = sed.index + sed[0].length - 1;
      const body = src.slice(open, matchBrace(src, open));
      for (const name of keysOf(src, open)) {
        const at = body.search(new RegExp(`\\b${name}\\s*:`));
        const fields = intersectionFields(body, at + body.slice(at).indexOf(':') + 1);
        const baseFields = namedTypeFields(src, 'Base') ?? [];
        add(d, `signing.${name}`, [...baseFields, ...(fields ?? [])], file);
      }
    }
  }
  return d;
}

describe('personal-data classification of the event log', async () => {
  const found = await discover();

  it('discovers the event types from the code (the scanner still works)', () => {
    expect(found.types.size).toBeGreaterThanOrEqual(70);
    for (const t of ['FaceEmbeddingEnrolled', 'FingerprintTemplateEnrolled', 'signing.document_signed', 'webhook.delivery.attempted', 'registry.lookup.completed', 'document.signed', 'deployment.claim.taken']) {
      expect(found.types.has(t), t).toBe(true);
    }
    expect([...found.types.get('FaceEmbeddingEnrolled')!]).toContain('template_f32le_b64');
    expect([...found.types.get('signing.document_signed')!]).toEqual(expect.arrayContaining(['prev_hash', 'ip_address', 'typed_name']));
    expect([...found.types.get('webhook.delivery.attempted')!]).toContain('next_attempt_at');
  });

  it('classifies every event type the code appends', () => {
    const missing = [...found.types.keys()].filter((t) => !EVENT_CLASSIFICATION[t]).map((t) => `${t} (${found.where.get(t)})`);
    expect(missing, 'classify these in domain/privacy/classification.ts and docs/privacy.md').toEqual([]);
  });

  it('classifies every data field of every event type', () => {
    const missing: string[] = [];
    for (const [type, fields] of found.types) {
      const c = EVENT_CLASSIFICATION[type];
      if (!c) continue;
      for (const f of fields) if (!(f in c.fields)) missing.push(`${type}.${f} (${found.where.get(type)})`);
    }
    expect(missing, 'classify these fields in domain/privacy/classification.ts').toEqual([]);
  });

  it('lists no event type or field the code no longer has', () => {
    const staleTypes = Object.keys(EVENT_CLASSIFICATION).filter((t) => !found.types.has(t));
    expect(staleTypes).toEqual([]);
    const staleFields: string[] = [];
    for (const [type, c] of Object.entries(EVENT_CLASSIFICATION)) {
      const seen = found.types.get(type);
      if (!seen || seen.size === 0) continue;
      for (const f of Object.keys(c.fields)) if (!seen.has(f)) staleFields.push(`${type}.${f}`);
    }
    expect(staleFields).toEqual([]);
  });

  it('seals personal fields only under a subject, and a type with a subject has personal fields', () => {
    for (const [type, c] of Object.entries(EVENT_CLASSIFICATION)) {
      if (c.subject) expect(personalFields(type).length, type).toBeGreaterThan(0);
      for (const [f, cls] of Object.entries(c.fields)) if (['tenant_id', 'at', 'created_at'].includes(f)) expect(isPersonal(cls), `${type}.${f}`).toBe(false);
    }
  });

  it('keeps the inventory page in step: docs/privacy.md names every event type with personal fields', () => {
    const doc = readFileSync(join(ROOT, 'docs/privacy.md'), 'utf8');
    const absent = Object.keys(EVENT_CLASSIFICATION).filter((t) => personalFields(t).length > 0 && !doc.includes('`' + t + '`'));
    expect(absent).toEqual([]);
  });
});
