import { describe, expect, it } from 'vitest';
import { canonicalAlias, aliasFamily } from '../../../domain/email/alias.ts';
import { isDisposableDomain, isFreeProvider, isRoleBased, suggestCorrection } from '../../../domain/email/lists.ts';
import { scoreBand, scoreOf, statisticsOf, type EmailVerificationResult } from '../../../domain/email/verify-email.ts';

describe('alias normalisation (spec: Gmail +suffix and dots, Yahoo -suffix, Outlook/Hotmail/Live +suffix)', () => {
  it.each([
    ['john.doe+news', 'gmail.com', 'johndoe@gmail.com'],
    ['j.o.h.n', 'gmail.com', 'john@gmail.com'],
    ['John.Doe+x', 'googlemail.com', 'johndoe@googlemail.com'],
    ['johndoe', 'gmail.com', null], // already canonical
    ['JohnDoe', 'gmail.com', null], // only case differs: not an alias
    ['juan-compras', 'yahoo.com', 'juan@yahoo.com'],
    ['juan-compras', 'yahoo.com.mx', 'juan@yahoo.com.mx'],
    ['juan-a-b', 'ymail.com', 'juan@ymail.com'],
    ['juan.perez', 'yahoo.com', null], // Yahoo keeps dots
    ['juan+x', 'yahoo.com', null], // and '+' is not its separator
    ['ana+banco', 'outlook.com', 'ana@outlook.com'],
    ['ana+banco', 'hotmail.com.mx', 'ana@hotmail.com.mx'],
    ['ana.lopez+x', 'live.com', 'ana.lopez@live.com'], // Outlook keeps dots
    ['ana+x', 'msn.com', 'ana@msn.com'],
    ['ana-x', 'outlook.com', null],
    ['ana+x', 'empresa.com.mx', null], // no rule for other domains
    ['+only', 'gmail.com', null], // no mailbox left
    ['"quoted+x"', 'gmail.com', null],
  ])('%s@%s -> %s', (local, domain, expected) => {
    expect(canonicalAlias(local, domain)).toBe(expected);
  });

  it('recognises provider families by domain', () => {
    expect(aliasFamily('gmail.com')).toBe('gmail');
    expect(aliasFamily('yahoo.co.uk')).toBe('yahoo');
    expect(aliasFamily('hotmail.es')).toBe('outlook');
    expect(aliasFamily('notgmail.com')).toBeNull();
    expect(aliasFamily('gmail.com.evil.test')).toBeNull();
  });
});

describe('score rule and bands (spec)', () => {
  const all = { syntax: true, domain_exists: true, mx_records: true, is_disposable: false, is_role_based: false };
  it.each([
    [all, false, 100, 'excellent'],
    [all, true, 95, 'excellent'],
    [{ ...all, is_role_based: true }, false, 90, 'excellent'],
    [{ ...all, is_role_based: true }, true, 85, 'good'],
    [{ ...all, mx_records: false }, false, 75, 'fair'], // null MX / no mail host
    [{ ...all, is_disposable: true }, false, 75, 'fair'],
    [{ ...all, domain_exists: false, mx_records: false }, false, 55, 'poor'], // NXDOMAIN or DNS error
    [{ ...all, domain_exists: false, mx_records: false, is_role_based: true }, false, 45, 'poor'],
    [{ ...all, domain_exists: false, mx_records: false, is_disposable: true, is_role_based: true }, false, 20, 'very poor'],
    [{ syntax: false, domain_exists: false, mx_records: false, is_disposable: false, is_role_based: false }, false, 35, 'very poor'],
  ])('%j alias=%s -> %i (%s)', (v, alias, score, band) => {
    expect(scoreOf(v, alias)).toBe(score);
    expect(scoreBand(score)).toBe(band);
  });
  it('band edges', () => {
    expect([100, 90, 89, 80, 79, 60, 59, 40, 39, 0].map(scoreBand)).toEqual([
      'excellent', 'excellent', 'good', 'good', 'fair', 'fair', 'poor', 'poor', 'very poor', 'very poor',
    ]);
  });
});

describe('lists from data packages', () => {
  it('disposable domains, including wildcard sub-domains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('yopmail.com')).toBe(true);
    expect(isDisposableDomain('gmail.com')).toBe(false);
    expect(isDisposableDomain('empresa.com.mx')).toBe(false);
    expect(isDisposableDomain('anything.33m.co')).toBe(true); // 33m.co is a wildcard entry
  });
  it('free consumer providers, Mexican ones included', () => {
    for (const d of ['gmail.com', 'hotmail.com', 'outlook.com', 'yahoo.com.mx', 'prodigy.net.mx', 'live.com.mx']) expect(isFreeProvider(d)).toBe(true);
    expect(isFreeProvider('banorte.com')).toBe(false);
  });
  it('role-based local parts (English and Spanish), ignoring a +tag and quotes', () => {
    for (const l of ['admin', 'info', 'Soporte', 'ventas', 'contacto', 'no-reply', 'postmaster', 'admin+x', '"info"']) expect(isRoleBased(l)).toBe(true);
    for (const l of ['juan.perez', 'maria', 'adminx']) expect(isRoleBased(l)).toBe(false);
  });
  it('typo suggestions, none for known providers or unknown corporate domains', () => {
    expect(suggestCorrection('juan', 'gmial.com')).toBe('juan@gmail.com');
    expect(suggestCorrection('juan', 'hotmial.com')).toBe('juan@hotmail.com');
    expect(suggestCorrection('juan', 'yaho.com.mx')).toBe('juan@yahoo.com.mx');
    expect(suggestCorrection('juan', 'gmail.con')).toBe('juan@gmail.com');
    expect(suggestCorrection('juan', 'gmail.com')).toBeNull();
    expect(suggestCorrection('juan', 'empresa.com.mx')).toBeNull();
    // short names rewritten are not typos (mailcheck alone offered qq.com, bt.com, lee.mx)
    for (const d of ['d1.com', 'ab.com', 'b.com', 'tec.mx', 'gmai.com.mx']) expect(suggestCorrection('a', d), d).toBeNull();
    expect(suggestCorrection('a', 'qq.cm')).toBe('a@qq.com');
    expect(suggestCorrection('a', 'iclud.com')).toBe('a@icloud.com');
    expect(suggestCorrection('juan', '[127.0.0.1]')).toBeNull();
  });
});

describe('batch statistics', () => {
  const r = (status: EmailVerificationResult['status'], role = false, alias = false) =>
    ({ status, validations: { is_role_based: role }, aliasOf: alias ? 'x@gmail.com' : null }) as unknown as EmailVerificationResult;
  it('counts every result, duplicates included', () => {
    expect(statisticsOf([r('VALID', false, true), r('VALID', true), r('INVALID_FORMAT'), r('INVALID_DOMAIN'), r('DISPOSABLE'), r('ERROR'), r('VALID', false, true)])).toEqual({
      total: 7,
      valid: 3,
      invalid_format: 1,
      invalid_domain: 1,
      disposable: 1,
      role_based: 1,
      has_alias: 2,
    });
  });
});
