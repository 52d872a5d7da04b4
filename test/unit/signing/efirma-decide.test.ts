/**
 * The signing decider's e.firma rules (issue 29), no IO: one signature type per document, an e.firma signer
 * signs only with method `efirma` (and a simple one never does), a signature prepared on a working PDF that
 * is no longer the latest is stale, and the fold: the signer's `efirma` record (identity + validation), the
 * document's working PDF, and what stays once the sealed identity reads as erased (null).
 */
import { describe, expect, it } from 'vitest';
import { foldDocument, type EfirmaSignedIdentity, type EfirmaValidation, type SigningEvent } from '../../../domain/signing/document.ts';
import { decideCreate, decideSendInvitations, decideSign, type CreateDocument, type SignCommand } from '../../../domain/signing/decide.ts';
import { auditEntries, signerView, verifyChain } from '../../../domain/signing/audit.ts';
import { erasedData } from '../../../domain/privacy/classification.ts';
import { SigningError } from '../../../domain/signing/errors.ts';

const T0 = Date.parse('2026-03-02T10:00:00Z');
const signers = (types: ('simple' | 'efirma')[]): CreateDocument['signers'] =>
  types.map((t, i) => ({ id: `s${i + 1}`, email: `s${i + 1}@example.com`, name: `S${i + 1}`, role: 'r', order: i + 1, fields: [], signature_type: t }));
const create = (types: ('simple' | 'efirma')[]): CreateDocument => ({
  documentId: 'doc_bbbbbbbbbbbbbbbbbbbbbbbb',
  tenantId: 't1',
  user: 'api_key:k1',
  title: 'T',
  description: null,
  message: null,
  notifyEmail: null,
  expiryDate: '2026-04-01T23:59:59.999Z',
  file: { name: 'a.pdf', size: 10, pages: 1 },
  pageSizes: [{ width: 600, height: 800 }],
  documentSha256: 'b'.repeat(64),
  blobKey: 'k',
  linkBase: 'http://x',
  locale: { language: 'es', timeZone: 'America/Mexico_City' },
  signers: signers(types),
  tags: new Map(),
});
const identity = (n: number): EfirmaSignedIdentity => ({ certificate_serial: `3030${n}`, certificate_sha256: String(n).repeat(64), holder_name: `HOLDER ${n}`, rfc: 'LOAA850101AB1', representative_rfc: null, curp: 'LOAA850101HDFPNN02', representative_curp: null });
const validation = (n: number): EfirmaValidation => ({ issuer: 'CN=AC PRUEBAS', ocsp_status: 'good', ocsp_produced_at: '2026-03-02T10:00:00.000Z', ocsp_responder: 'http://ocsp', working_pdf_blob: `w${n}`, working_pdf_sha256: `${n}`.repeat(64), ocsp_blob: `o${n}` });
const efirmaSign = (signerId: string, n: number, base: string | null): SignCommand => ({
  signerId,
  ip: '1.2.3.4',
  userAgent: 'ua',
  signatureId: `sig_${n}`,
  method: 'efirma',
  typedName: null,
  imageBlob: null,
  imageSha256: null,
  consent: true,
  efirma: { identity: identity(n), validation: validation(n), basePdfSha256: base },
});
function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SigningError);
    return (e as SigningError).code;
  }
  return 'no error';
}

describe('e.firma in the signing decider', () => {
  it('refuses a document mixing simple and e.firma signers, and rfc/curp on a simple signer', () => {
    expect(code(() => decideCreate(create(['efirma', 'simple']), T0))).toBe('mixed_signature_types');
    const c = create(['simple']);
    c.signers[0]!.rfc = 'LOAA850101AB1';
    expect(code(() => decideCreate(c, T0))).toBe('invalid_signer');
    expect(code(() => decideCreate(create(['efirma', 'efirma']), T0))).toBe('no error');
  });

  it('an e.firma signer signs only with method efirma on the latest working PDF; the fold records both parts', () => {
    let events: SigningEvent[] = decideCreate(create(['efirma', 'efirma']), T0);
    events = [...events, ...decideSendInvitations(foldDocument(events), { reminderDays: 3, customMessage: null, user: 'u' }, T0 + 1)];
    let s = foldDocument(events);
    expect(s.signers.map((x) => [x.signature_type, x.efirma])).toEqual([['efirma', null], ['efirma', null]]);
    expect(code(() => decideSign(s, { ...efirmaSign('s1', 1, null), method: 'typed', typedName: 'S1', efirma: undefined }, T0 + 2))).toBe('efirma_required');
    expect(code(() => decideSign(s, efirmaSign('s1', 1, 'f'.repeat(64)), T0 + 2))).toBe('efirma_prepare_stale');
    events = [...events, ...decideSign(s, efirmaSign('s1', 1, null), T0 + 2)];
    s = foldDocument(events);
    expect(s.working_pdf_blob).toBe('w1');
    expect(s.signers[0]!.efirma).toEqual({ ...identity(1), ...validation(1) });
    expect(signerView(s.signers[0]!)).toMatchObject({ signature_type: 'efirma', efirma: { certificate_serial: '30301', ocsp_status: 'good', holder_name: 'HOLDER 1' } });
    // Signer 2 prepared on the original: stale now; on the latest working PDF: signed, document complete.
    expect(code(() => decideSign(s, efirmaSign('s2', 2, null), T0 + 3))).toBe('efirma_prepare_stale');
    events = [...events, ...decideSign(s, efirmaSign('s2', 2, '1'.repeat(64)), T0 + 3)];
    s = foldDocument(events);
    expect([s.status, s.working_pdf_blob, s.working_pdf_sha256]).toEqual(['signed', 'w2', '2'.repeat(64)]);
    expect(verifyChain(events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown> }))).ok).toBe(true);
    const audit = auditEntries(events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown> }))).filter((a) => a.event === 'document_signed');
    expect(audit.map((a) => a.efirma)).toEqual([
      { certificate_serial: '30301', issuer: 'CN=AC PRUEBAS', ocsp_status: 'good', ocsp_produced_at: '2026-03-02T10:00:00.000Z' },
      { certificate_serial: '30302', issuer: 'CN=AC PRUEBAS', ocsp_status: 'good', ocsp_produced_at: '2026-03-02T10:00:00.000Z' },
    ]);

    // Once the document's key is destroyed the identity reads as erased; the validation and working PDF stay.
    const erase = (e: SigningEvent) => ({ ...e, data: erasedData(e.type, e.data as unknown as Record<string, unknown>) }) as unknown as SigningEvent;
    expect(foldDocument(events.map(erase))).toMatchObject({ signers: [], working_pdf_blob: 'w2', working_pdf_sha256: '2'.repeat(64) });
    // (the signer list is erased with document_created; read the signed entries erased on their own)
    const after = foldDocument(events.map((e) => (e.type === 'signing.document_signed' ? erase(e) : e)));
    expect(after.signers[0]!.efirma).toMatchObject({ certificate_serial: '', holder_name: '', rfc: null, ocsp_status: 'good', working_pdf_blob: 'w1', ocsp_blob: 'o1' });
  });

  it('a simple signer cannot sign with method efirma', () => {
    let events: SigningEvent[] = decideCreate(create(['simple']), T0);
    events = [...events, ...decideSendInvitations(foldDocument(events), { reminderDays: 3, customMessage: null, user: 'u' }, T0 + 1)];
    expect(code(() => decideSign(foldDocument(events), efirmaSign('s1', 1, null), T0 + 2))).toBe('efirma_not_expected');
  });
});
