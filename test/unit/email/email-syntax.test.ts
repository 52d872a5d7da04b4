/**
 * Syntax: where the validator agrees with RFC 5321/5322/6531 and the public validator suites, and where it
 * deliberately differs (each difference named, with its reason, in `DELIBERATE`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import emailAddresses from 'email-addresses';
import { SIMPLE_DOT_ATOM, parseEmailAddress } from '../../../domain/email/syntax.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dataDir = path.resolve(repoRoot, '../shared/data/email');

describe('RFC 5321/5322 addr-spec: accepted', () => {
  it.each([
    ['simple@example.com', 'dns'],
    ['very.common@example.com', 'dns'],
    ['disposable.style.email.with+symbol@example.com', 'dns'],
    ['x@example.com', 'dns'],
    ["!#$%&'*+-/=?^_`{|}~@example.org", 'dns'], // RFC 5322 §3.2.3 atext
    ['"john..doe"@example.org', 'dns'], // quoted local part (RFC 5321 §4.1.2)
    ['"much.more unusual"@example.com', 'dns'],
    ['"very.(),:;<>[]\\".VERY.\\"very@\\\\ \\"very\\".unusual"@strange.example.com', 'dns'],
    ['user@[192.0.2.1]', 'ipv4'], // address literal (RFC 5321 §4.1.3)
    ['user@[IPv6:2001:db8::1]', 'ipv6'],
    ['usuario@dominio.com.mx', 'dns'],
    ['josé.peña@correo.mx', 'dns'], // RFC 6531 UTF-8 local part
    ['用户@例子.广告', 'dns'], // RFC 6531 + IDNA 2008 domain
    ['user@xn--bcher-kva.de', 'dns'], // A-label typed directly
    ['user@bücher.de', 'dns'],
  ])('%s', (address, kind) => {
    const r = parseEmailAddress(address);
    expect(r.valid).toBe(true);
    expect(r.valid && r.domainKind).toBe(kind);
  });

  it('gives the A-label form of an IDN domain and flags SMTPUTF8 local parts', () => {
    const r = parseEmailAddress('用户@例子.广告');
    expect(r).toMatchObject({ valid: true, asciiDomain: 'xn--fsqu00a.xn--4rr70v', unicodeDomain: '例子.广告', smtputf8: true });
    expect(parseEmailAddress('User@Example.COM')).toMatchObject({ valid: true, asciiDomain: 'example.com', smtputf8: false });
  });
});

describe('RFC 5321/5322 addr-spec: rejected', () => {
  it.each([
    ['Abc.example.com', 'missing_at'],
    ['A@b@c@example.com', 'not_addr_spec'],
    ['a"b(c)d,e:f;g<h>i[j\\k]l@example.com', 'not_addr_spec'],
    ['just"not"right@example.com', 'not_addr_spec'],
    ['this is"not\\allowed@example.com', 'comment_or_whitespace'],
    ['john..doe@example.com', 'not_addr_spec'],
    ['.john@example.com', 'not_addr_spec'],
    ['john.@example.com', 'not_addr_spec'],
    ['john@example..com', 'not_addr_spec'],
    ['john@-example.com', 'bad_idna_domain'],
    ['john@example-.com', 'bad_idna_domain'],
    ['john@exa_mple.com', 'bad_idna_domain'],
    ['1234567890123456789012345678901234567890123456789012345678901234+x@example.com', 'local_too_long'],
    ['user@[192.0.2.256]', 'bad_address_literal'],
    ['user@[tag:general-literal]', 'bad_address_literal'],
    ['"line\nbreak"@example.com', 'comment_or_whitespace'],
    ['"tab\there"@example.com', 'bad_quoted_local'],
    ['user\u0000@example.com', 'not_addr_spec'],
    ['', 'empty'],
  ])('%j -> %s', (address, reason) => {
    expect(parseEmailAddress(address)).toEqual({ valid: false, reason });
  });

  it('rejects non-strings and oversized or malformed Unicode input without throwing', () => {
    expect(parseEmailAddress(42)).toEqual({ valid: false, reason: 'not_a_string' });
    expect(parseEmailAddress(null)).toEqual({ valid: false, reason: 'not_a_string' });
    expect(parseEmailAddress('a'.repeat(100_000) + '@example.com')).toEqual({ valid: false, reason: 'too_long' });
    expect(parseEmailAddress('ab\ud800c@example.com')).toEqual({ valid: false, reason: 'unsafe_character' });
    expect(parseEmailAddress('a\u2028b@example.com').valid).toBe(false);
    expect(parseEmailAddress('\u202ejuan@example.com')).toEqual({ valid: false, reason: 'unsafe_character' });
  });

  it('stays fast on pathological input (parser work is bounded by the input cap)', () => {
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) {
      parseEmailAddress('"' + '\\"'.repeat(150) + '@example.com');
      parseEmailAddress('a.'.repeat(150) + '@example.com');
      parseEmailAddress('x@' + 'a.'.repeat(150) + 'com');
    }
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe('fast path for plain dot-atom addresses', () => {
  it('every input taking the fast path is an addr-spec the parser accepts unchanged', () => {
    const fixture = JSON.parse(readFileSync(path.resolve(repoRoot, 'test/fixtures/email-labelled.json'), 'utf8')) as { addresses: Array<{ address: string }> };
    const inputs = [...fixture.addresses.map((a) => a.address), 'a@b.co', 'x.y.z@a-b.c-d.com', "o'brien@example.ie", 'ab--cd@ab--cd.com'];
    let fast = 0;
    for (const input of inputs) {
      if (!SIMPLE_DOT_ATOM.test(input)) continue;
      fast++;
      const parsed = emailAddresses.parseOneAddress({ input, rfc6532: true, strict: true });
      expect(parsed && parsed.type === 'mailbox' && parsed.parts.address.tokens === input && parsed.parts.comments.length === 0, input).toBe(true);
    }
    expect(fast).toBeGreaterThan(50);
  });
});

/** Where this validator deliberately differs from a permissive RFC 5322 reading, and why (see syntax.ts). */
describe('deliberate differences', () => {
  it.each([
    ['john(comment)@example.com', 'RFC 5322 CFWS: header syntax, not an RFC 5321 Mailbox'],
    ['john @example.com', 'folding white space'],
    [' john@example.com', 'surrounding white space is not trimmed silently'],
    ['John Doe <john@example.com>', 'display names belong to headers, not to an address field'],
    ['john."doe".smith@example.com', 'RFC 5322 §4.4 obsolete local part, "MUST NOT be generated"'],
    ['user@localhost', 'single-label domains are not public mail domains (RFC 7085, ICANN SSAC)'],
    ['user@example.123', 'all-numeric TLD (RFC 3696 §2)'],
    ['user@192.0.2.1', 'an IP address must be bracketed as an address literal (RFC 5321 §4.1.3)'],
    ['somename@ｇｍａｉｌ.com', 'full-width letters: UTS #46 maps them, IDNA 2008 (RFC 5891 §5.4) does not accept them'],
    ['user@BÜCHER.de', 'upper-case non-ASCII is a mapping too; IDNA 2008 takes only U-labels'],
    ['username@domain.com©', 'symbols are not PVALID in IDNA 2008 (RFC 5892)'],
  ])('rejects %j (%s)', (address) => {
    expect(parseEmailAddress(address).valid).toBe(false);
  });

  it.each([
    ['me@[127.0.0.1]', 'address literals are RFC 5321 syntax (python email-validator rejects them by default); the DNS step then marks them INVALID_DOMAIN'],
    ['me@valid.invalid', 'special-use names (RFC 6761) are valid syntax; they fail at DNS instead'],
    ['"quoted"@example.com', 'quoted local parts are RFC 5321 syntax (pyisemail flags them as a warning only)'],
    ['tüst@example.com', 'UTF-8 local parts are valid under RFC 6531 (validator.js allow_utf8_local_part:false rejects them)'],
  ])('accepts %j (%s)', (address) => {
    expect(parseEmailAddress(address).valid).toBe(true);
  });
});

describe('agreement with public validator suites (shared data)', () => {
  const present = existsSync(dataDir);
  if (!present) console.warn(`email syntax suites skipped: ${dataDir} is absent`);

  it.runIf(present)('validator.js isEmail: full agreement on the default options, differences only where documented', () => {
    const blocks = JSON.parse(readFileSync(path.join(dataDir, 'validatorjs-isEmail/isEmail_vectors.json'), 'utf8')) as Array<{
      it: string;
      args: unknown[];
      valid?: string[];
      invalid?: string[];
    }>;
    // Option blocks that configure product policy we do not offer (display names, host lists, custom
    // character denylists, Gmail length policy, ignoring length limits) are not syntax; they are left out.
    const comparable = blocks.filter((b) => {
      const a = JSON.stringify(b.args);
      return a === '[]' || a.includes('allow_ip_domain') || a.includes('allow_underscores');
    });
    let agree = 0;
    let total = 0;
    const differences: string[] = [];
    for (const b of comparable) {
      for (const [label, list] of [
        [true, b.valid ?? []],
        [false, b.invalid ?? []],
      ] as const) {
        for (const e of list) {
          total++;
          if (parseEmailAddress(e).valid === label) agree++;
          else differences.push(e);
        }
      }
    }
    console.log(`validator.js isEmail (default, allow_ip_domain, allow_underscores blocks): ${agree}/${total} agree (${((100 * agree) / total).toFixed(1)}%)`);
    // Both differences are deliberate: a bare IP without brackets (RFC 5321 §4.1.3 wants [..]) and an
    // underscore in a host name (RFC 952/1123 LDH rule).
    expect(differences.sort()).toEqual(['email@255.255.255.255', 'foobar@my_sarisari_store.typepad.com']);
  });

  it.runIf(present)('python email-validator and pyisemail vectors: differences only where documented', () => {
    const blocks = JSON.parse(readFileSync(path.join(dataDir, 'python-email-validator/test_syntax_vectors.json'), 'utf8')) as Array<{
      test_function: string;
      cases: Array<Record<string, unknown>>;
    }>;
    let agree = 0;
    let total = 0;
    const differences: Array<{ fn: string; input: string; reason: string }> = [];
    for (const b of blocks) {
      for (const c of b.cases) {
        const input = c.email_input;
        if (typeof input !== 'string') continue; // test_email_unsafe_character holds bare characters
        let expected: boolean;
        if (b.test_function.startsWith('test_email_valid')) expected = true;
        // pyisemail: VALID, DNSWARN and RFC5321 categories are valid RFC 5321 addresses; CFWS, DEPREC,
        // RFC5322-only and ERR categories are not usable in SMTP.
        else if (b.test_function === 'test_pyisemail_tests') expected = /^ISEMAIL_(VALID|DNSWARN|RFC5321)/.test(String(c.status));
        else expected = false;
        total++;
        const got = parseEmailAddress(input);
        if (got.valid === expected) {
          agree++;
          continue;
        }
        let reason: string;
        if (/</.test(input)) reason = 'display name';
        else if (b.test_function === 'test_email_invalid_reserved_domain') reason = 'special-use domain';
        else if (/@\[/.test(input)) reason = 'address literal';
        else if (b.test_function === 'test_email_invalid_character_smtputf8_off') reason = 'SMTPUTF8 off in that block';
        else reason = 'UNEXPECTED';
        differences.push({ fn: b.test_function, input, reason });
      }
    }
    const byReason = differences.reduce<Record<string, number>>((m, d) => ({ ...m, [d.reason]: (m[d.reason] ?? 0) + 1 }), {});
    console.log(`python email-validator + pyisemail: ${agree}/${total} agree (${((100 * agree) / total).toFixed(1)}%); differences: ${JSON.stringify(byReason)}`);
    expect(differences.filter((d) => d.reason === 'UNEXPECTED')).toEqual([]);
    expect(agree / total).toBeGreaterThan(0.93);
  });
});
