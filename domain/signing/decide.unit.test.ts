/** Decider specification of the signing document: given(events).when(command).then(events | error). No IO. */
import { describe, expect, it } from 'vitest';
import { foldDocument, type SigningEvent } from './document.ts';
import { decideCancel, decideCreate, decideDecline, decideExpire, decideFinalize, decideRemind, decideSendInvitations, decideSign, type CreateDocument, type SignCommand } from './decide.ts';
import { verifyChain } from './audit.ts';
import { SigningError } from './errors.ts';

const T0 = Date.parse('2026-01-10T10:00:00Z');
const create = (over: Partial<CreateDocument> = {}): CreateDocument => ({
  documentId: 'doc_aaaaaaaaaaaaaaaaaaaaaaaa',
  tenantId: 't1',
  user: 'api_key:k1',
  title: 'T',
  description: null,
  message: null,
  notifyEmail: null,
  expiryDate: '2026-02-01T23:59:59.999Z',
  file: { name: 'a.pdf', size: 10, pages: 2 },
  pageSizes: [{ width: 600, height: 800 }, { width: 600, height: 800 }],
  documentSha256: 'a'.repeat(64),
  blobKey: 'k',
  linkBase: 'http://x',
  locale: { language: 'es', timeZone: 'America/Mexico_City' },
  signers: [
    { id: 's1', email: 'a@example.com', name: 'A', role: 'r', order: 1, fields: [] },
    { id: 's2', email: 'b@example.com', name: 'B', role: 'r', order: 1, fields: [] },
    { id: 's3', email: 'c@example.com', name: 'C', role: 'r', order: 2, fields: [] },
  ],
  tags: new Map(),
  ...over,
});
const sign = (signerId: string): SignCommand => ({ signerId, ip: '1.2.3.4', userAgent: 'ua', signatureId: `sig_${signerId}`, method: 'typed', typedName: signerId, imageBlob: null, imageSha256: null, consent: true });

function given(...batches: SigningEvent[][]) {
  const events = batches.flat();
  return { events, state: foldDocument(events) };
}
function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SigningError);
    return (e as SigningError).code;
  }
  return 'no error';
}

describe('signing decider', () => {
  const created = decideCreate(create(), T0);
  const sent = decideSendInvitations(foldDocument(created), { reminderDays: 3, customMessage: null, user: 'u' }, T0 + 1);

  it('invites the lowest order; equal orders in parallel; the next order when they have all signed', () => {
    expect(sent[0]!.data).toMatchObject({ signer_ids: ['s1', 's2'] });
    let g = given(created, sent);
    expect(g.state.status).toBe('sent');
    expect(code(() => decideSign(g.state, sign('s3'), T0 + 2))).toBe('not_your_turn');
    const a = decideSign(g.state, sign('s1'), T0 + 2);
    expect(a.map((e) => e.type)).toEqual(['signing.document_signed']);
    g = given(g.events, a);
    expect(g.state.status).toBe('partially_signed');
    const b = decideSign(g.state, sign('s2'), T0 + 3);
    expect(b.map((e) => e.type)).toEqual(['signing.document_signed', 'signing.invitations_sent']);
    expect(b[1]!.data).toMatchObject({ signer_ids: ['s3'] });
    g = given(g.events, b);
    expect(code(() => decideSign(g.state, sign('s1'), T0 + 4))).toBe('already_signed');
    const c = decideSign(g.state, sign('s3'), T0 + 4);
    expect(c.map((e) => e.type)).toEqual(['signing.document_signed', 'signing.document_completed']);
    g = given(g.events, c);
    expect(g.state.status).toBe('signed');
    expect(decideExpire(g.state, Date.parse('2026-03-01T00:00:00Z'))).toEqual([]); // signed before expiry: never expires
    const f = decideFinalize(g.state, { finalSha256: 'f', auditSha256: 'a', certificateSha256: 'c', chainHead: g.state.last_hash, timestamped: false, user: 'u' }, T0 + 5);
    g = given(g.events, f);
    expect(g.state.status).toBe('completed');
    expect(code(() => decideCancel(g.state, { reason: null, user: 'u' }, T0 + 6))).toBe('document_locked');
    expect(verifyChain(g.events as never).ok).toBe(true);
  });

  it('chains every event to the previous one, rooted in the PDF hash', () => {
    expect(created[0]!.data.prev_hash).toBe('a'.repeat(64));
    const v = verifyChain([...created, ...sent] as never);
    expect(v.ok).toBe(true);
    const forged = structuredClone([...created, ...sent]) as SigningEvent[];
    (forged[0]!.data as { title: string }).title = 'edited';
    expect(verifyChain(forged as never)).toMatchObject({ ok: false, broken: { index: 1 } });
  });

  it('expires only after expiry_date, and a document past it refuses every change', () => {
    const g = given(created, sent);
    expect(decideExpire(g.state, Date.parse('2026-02-01T23:59:59.000Z'))).toEqual([]);
    const later = Date.parse('2026-02-02T00:00:00Z');
    expect(code(() => decideSign(g.state, sign('s1'), later))).toBe('document_expired');
    const exp = decideExpire(g.state, later);
    expect(exp[0]).toMatchObject({ type: 'signing.document_expired', data: { expired_at: '2026-02-01T23:59:59.999Z' } });
    const after = given(g.events, exp);
    expect(after.state.status).toBe('expired');
    expect(decideRemind(after.state, later)).toEqual([]);
  });

  it('a decline cancels the document with the signer and the reason; a blank reason is refused', () => {
    const g = given(created, sent);
    expect(code(() => decideDecline(g.state, { signerId: 's1', reason: '  ', ip: 'i', userAgent: 'u' }, T0 + 2))).toBe('invalid_signer');
    const d = given(g.events, decideDecline(g.state, { signerId: 's2', reason: 'no', ip: 'i', userAgent: 'u' }, T0 + 2));
    expect(d.state).toMatchObject({ status: 'cancelled', cancellation: { by: 'signer', signer_id: 's2', reason: 'no' } });
    expect(code(() => decideSign(d.state, sign('s1'), T0 + 3))).toBe('document_cancelled');
  });

  it('reminds only invited signers who have not signed', () => {
    const g = given(created, sent, decideSign(foldDocument([...created, ...sent]), sign('s1'), T0 + 2));
    expect(decideRemind(g.state, T0 + 3)[0]!.data).toMatchObject({ signer_ids: ['s2'], recipients: ['b@example.com'] });
  });

  it('refuses bad e-mails, duplicates and placements outside the document; tags fill missing fields', () => {
    expect(code(() => decideCreate(create({ signers: [{ id: 'x', email: 'bad@', name: 'X', role: '', order: 1, fields: [] }] }), T0))).toBe('invalid_signer');
    expect(code(() => decideCreate(create({ signers: [{ id: 'x', email: 'a@example.com', name: 'X', role: '', order: 1, fields: [{ page: 3, x: 0, y: 0, width: 10, height: 10 }] }] }), T0))).toBe('invalid_placement');
    expect(code(() => decideCreate(create({ signers: [{ id: 'x', email: 'a@example.com', name: 'X', role: '', order: 1, fields: [{ page: 1, x: 590, y: 0, width: 20, height: 10 }] }] }), T0))).toBe('invalid_placement');
    const tagged = decideCreate(create({ tags: new Map([[2, [{ page: 2, x: 10, y: 10, width: 150, height: 40, from_tag: true }]]]) }), T0);
    expect(foldDocument(tagged).signers.find((x) => x.id === 's3')!.fields).toHaveLength(1);
  });
});
