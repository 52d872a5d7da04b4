/**
 * e.firma certificate reading and usability (issue 29): SAT-shaped certificates made by the test PKI
 * (`openssl`, test/helpers/efirma-pki.ts): a person's and a company's FIEL (both RFCs and CURPs read), a CSD
 * refused, an expired one refused, RFC/CURP matching against the holder or the legal representative, and the
 * value encodings the SAT's certificates use (UTF8String, PrintableString, BMPString, a BIT STRING uid).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { createTestPki, haveOpenssl, TEST_CERT_OCSP_URL, type TestPki, type TestSigner } from '../../helpers/efirma-pki.ts';
import { assertFielUsable, parseEfirmaCertificate } from '../../../domain/signing/efirma/certificate.ts';
import { SigningError } from '../../../domain/signing/errors.ts';

if (!haveOpenssl) console.log('skip: openssl is not installed (the test PKI is made with the openssl CLI)');

const codeOf = (f: () => void): string | null => {
  try {
    f();
    return null;
  } catch (e) {
    if (e instanceof SigningError) return e.code;
    throw e;
  }
};

describe.skipIf(!haveOpenssl)('e.firma certificate', () => {
  let pki: TestPki;
  let person: TestSigner;
  let company: TestSigner;
  let csd: TestSigner;
  let expired: TestSigner;
  const now = new Date();

  beforeAll(() => {
    pki = createTestPki();
    person = pki.makeSigner({ name: 'GUADALUPE PÉREZ LÓPEZ', rfc: 'PELG800101AB1', curp: 'PELG800101MDFRPD09' });
    company = pki.makeSigner({ name: 'TOMAS HERNANDEZ GARCIA', rfc: 'HEGT7610034S2', curp: 'HEGT761003MDFRNN09', company: { rfc: 'AAA010101AAA', name: 'ACME DE MEXICO SA DE CV' } });
    csd = pki.makeSigner({ name: 'ACME DE MEXICO SA DE CV', rfc: 'AAA010101AAA', curp: 'HEGT761003MDFRNN09', csd: true });
    expired = pki.makeSigner({ name: 'JUAN VENCIDO RUIZ', rfc: 'VERJ700101AB2', curp: 'VERJ700101HDFNZN01', expired: true });
  });
  afterAll(() => pki?.cleanup());

  it("reads a person's FIEL: holder, RFC, CURP, issuer, serial, validity, OCSP URL, public key", () => {
    const c = parseEfirmaCertificate(person.cer);
    expect(c.subjectCommonName).toBe('GUADALUPE PÉREZ LÓPEZ');
    expect(c.holderName).toBe('GUADALUPE PÉREZ LÓPEZ');
    expect(c.rfc).toBe('PELG800101AB1');
    expect(c.representativeRfc).toBeNull();
    expect(c.curp).toBe('PELG800101MDFRPD09');
    expect(c.representativeCurp).toBeNull();
    expect(c.organizationalUnit).toBeNull();
    expect(c.issuerCommonName).toBe('AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS');
    expect(c.issuerDn).toBe('C=MX,OU=Administración de Seguridad de la Información,O=Servicio de Administración Tributaria,CN=AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS');
    expect(c.serialNumberHex).toBe(person.serialHex);
    expect(c.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(c.notAfter.getTime()).toBeGreaterThan(now.getTime());
    expect(c.notBefore.getTime()).toBeLessThanOrEqual(now.getTime() + 1000);
    expect(c.ocspUrl).toBe(TEST_CERT_OCSP_URL);
    const cert = pkijs.Certificate.fromBER(new Uint8Array(person.cer).buffer);
    expect(c.spkiDer.equals(Buffer.from(cert.subjectPublicKeyInfo.toSchema().toBER(false)))).toBe(true);
    expect(() => assertFielUsable(c, now, {})).not.toThrow();
  });

  it("reads a company's FIEL: the company's RFC and the representative's RFC and CURP", () => {
    const c = parseEfirmaCertificate(company.cer);
    expect(c.holderName).toBe('ACME DE MEXICO SA DE CV');
    expect(c.rfc).toBe('AAA010101AAA');
    expect(c.representativeRfc).toBe('HEGT7610034S2');
    expect(c.curp).toBeNull();
    expect(c.representativeCurp).toBe('HEGT761003MDFRNN09');
    expect(() => assertFielUsable(c, now, {})).not.toThrow();
  });

  it('refuses a CSD (subject with an OU) as efirma_not_fiel', () => {
    const c = parseEfirmaCertificate(csd.cer);
    expect(c.organizationalUnit).toBe('SUCURSAL MATRIZ');
    expect(codeOf(() => assertFielUsable(c, now, {}))).toBe('efirma_not_fiel');
  });

  it('refuses an expired certificate, and one not valid yet, as efirma_certificate_expired', () => {
    const c = parseEfirmaCertificate(expired.cer);
    expect(c.notAfter.toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(codeOf(() => assertFielUsable(c, now, {}))).toBe('efirma_certificate_expired');
    expect(codeOf(() => assertFielUsable(c, new Date('2022-06-01T00:00:00Z'), {}))).toBeNull();
    const p = parseEfirmaCertificate(person.cer);
    let e: SigningError | undefined;
    try {
      assertFielUsable(p, new Date(p.notBefore.getTime() - 60_000), {});
    } catch (x) {
      e = x as SigningError;
    }
    expect(e?.code).toBe('efirma_certificate_expired');
    expect(e?.status).toBe(422);
    expect(e?.details.reason).toBe('not_yet_valid');
  });

  it('matches the expected RFC/CURP against the holder or the legal representative, case-insensitively', () => {
    const p = parseEfirmaCertificate(person.cer);
    expect(codeOf(() => assertFielUsable(p, now, { rfc: 'pelg800101ab1' }))).toBeNull();
    expect(codeOf(() => assertFielUsable(p, now, { curp: 'PELG800101MDFRPD09', rfc: null }))).toBeNull();
    expect(codeOf(() => assertFielUsable(p, now, { rfc: 'PELG800101AB1', curp: 'PELG800101MDFRPD09' }))).toBeNull();
    expect(codeOf(() => assertFielUsable(p, now, { rfc: 'XAXX010101000' }))).toBe('efirma_identity_mismatch');
    expect(codeOf(() => assertFielUsable(p, now, { rfc: 'PELG800101AB1', curp: 'HEGT761003MDFRNN09' }))).toBe('efirma_identity_mismatch');
    const c = parseEfirmaCertificate(company.cer);
    expect(codeOf(() => assertFielUsable(c, now, { rfc: 'AAA010101AAA' }))).toBeNull();
    expect(codeOf(() => assertFielUsable(c, now, { rfc: 'HEGT7610034S2' }))).toBeNull();
    expect(codeOf(() => assertFielUsable(c, now, { curp: 'HEGT761003MDFRNN09' }))).toBeNull();
    expect(codeOf(() => assertFielUsable(c, now, { rfc: 'AAA010101AAA', curp: 'HEGT761003MDFRNN09' }))).toBeNull();
    expect(codeOf(() => assertFielUsable(c, now, { rfc: 'PELG800101AB1' }))).toBe('efirma_identity_mismatch');
  });

  it('reads BMPString, PrintableString and BIT STRING values as the same text', () => {
    const cert = pkijs.Certificate.fromBER(new Uint8Array(company.cer).buffer);
    for (const tv of cert.subject.typesAndValues) {
      const text = String((tv.value as asn1js.Utf8String).valueBlock.value);
      if (tv.type === '2.5.4.45') tv.value = new asn1js.BitString({ valueHex: new TextEncoder().encode(text).buffer }) as never;
      else if (tv.type === '2.5.4.5') tv.value = new asn1js.PrintableString({ value: text });
      else if (tv.type !== '1.2.840.113549.1.9.1') tv.value = new asn1js.BmpString({ value: text });
    }
    cert.subject.valueBeforeDecode = new ArrayBuffer(0);
    const der = Buffer.from(cert.toSchema(true).toBER(false));
    const c = parseEfirmaCertificate(der);
    expect(c.holderName).toBe('ACME DE MEXICO SA DE CV');
    expect([c.rfc, c.representativeRfc, c.curp, c.representativeCurp]).toEqual(['AAA010101AAA', 'HEGT7610034S2', null, 'HEGT761003MDFRNN09']);
  });

  it('refuses what is not one DER certificate as efirma_certificate_invalid', () => {
    const pem = Buffer.from(`-----BEGIN CERTIFICATE-----\n${person.cer.toString('base64')}\n-----END CERTIFICATE-----\n`);
    for (const bad of [Buffer.alloc(0), Buffer.from('not a certificate'), pem, person.cer.subarray(0, 200), Buffer.concat([person.cer, Buffer.from([0])]), person.key]) {
      expect(codeOf(() => parseEfirmaCertificate(bad))).toBe('efirma_certificate_invalid');
    }
  });
});
