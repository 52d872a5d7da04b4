/**
 * Side effects of the signing lifecycle (Temporal-style `createActivities(deps)` factory). Each loads the
 * document from its stream, so it acts on the current facts, not on what the workflow last saw.
 * - `signing.notify`: issues a fresh link (its hash is logged first) and mails the invitation;
 * - `signing.remind`: logs `reminder_sent` and mails each invited signer who has not signed a fresh link;
 * - `signing.expire`: logs `document_expired` when the expiry passed first;
 * - `signing.webhook`: publishes the catalog event (`document.signed`, ...) of a logged event; a decline,
 *   and the completion (every signer signed), are also mailed to the owner's `notify_email`.
 */
import type { Activity, Clock } from '../../infra/ports/workflows.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { Mailer } from '../../infra/ports/mail.ts';
import { documentStream, foldDocument } from '../../domain/signing/document.ts';
import { decideExpire, decideRemind } from '../../domain/signing/decide.ts';
import { renderCompletedMail, renderDeclinedMail, renderInvitationMail, type Branding } from './emails.ts';
import type { ExpireInput, NotifyInput, RemindInput, WebhookInput } from './process.ts';
import type { SigningService } from './service.ts';

export interface SigningActivityDeps {
  events: EventStore;
  mailer: Mailer;
  clock: Clock;
  service: SigningService;
  mailFrom: string;
  publishWebhookEvent: (tenantId: string, type: string, data: Record<string, unknown>) => Promise<void>;
  /** Branding of e-mails per tenant (white-label); Sello's by default. */
  branding?: (tenantId: string) => Promise<Branding | undefined>;
}

export function createSigningActivities(deps: SigningActivityDeps): Record<string, Activity> {
  const { events, mailer, clock, service } = deps;

  async function mailLink(documentId: string, signerId: string, kind: 'invitation' | 'reminder'): Promise<boolean> {
    const link = await service.issueLink(documentId, signerId, kind);
    if (!link) return false;
    const s = link.state;
    const signer = s.signers.find((x) => x.id === signerId)!;
    const mail = renderInvitationMail({
      kind,
      signerName: signer.name,
      title: s.title,
      message: s.message,
      customMessage: s.custom_message,
      link: link.url,
      expiresAt: link.expiresAt,
      locale: s.locale,
      ...(deps.branding ? { branding: await deps.branding(s.tenant_id) } : {}),
    });
    await mailer.send({ from: deps.mailFrom, to: { name: signer.name, address: signer.email }, subject: mail.subject, text: mail.text, html: mail.html, headers: { 'X-Sello-Document': documentId } });
    return true;
  }

  const notify: Activity = async (input: NotifyInput) => ({ sent: await mailLink(input.documentId, input.signerId, 'invitation') });

  const remind: Activity = async (input: RemindInput) => {
    const { events: evs } = await events.readStream(documentStream(input.documentId));
    const s = foldDocument(evs);
    const out = decideRemind(s, clock.now());
    if (out.length === 0) return { reminded: 0 };
    await events.append(documentStream(input.documentId), out.map((e) => ({ ...e, metadata: { tenant_id: s.tenant_id } })), { expectedRevision: s.revision });
    const ids = (out[0]!.data as { signer_ids: string[] }).signer_ids;
    let n = 0;
    for (const id of ids) if (await mailLink(input.documentId, id, 'reminder')) n++;
    return { reminded: n };
  };

  const expire: Activity = async (input: ExpireInput) => {
    const { events: evs } = await events.readStream(documentStream(input.documentId));
    const s = foldDocument(evs);
    const out = decideExpire(s, clock.now());
    if (out.length) await events.append(documentStream(input.documentId), out.map((e) => ({ ...e, metadata: { tenant_id: s.tenant_id } })), { expectedRevision: s.revision });
    return { expired: out.length > 0 };
  };

  const webhook: Activity = async (input: WebhookInput) => {
    const { events: evs } = await events.readStream(documentStream(input.documentId));
    const s = foldDocument(evs);
    const ev = evs.find((e) => e.streamRevision === input.revision);
    if (!ev) return { published: false };
    const d = ev.data as Record<string, unknown>;
    const who = (id: unknown) => s.signers.find((x) => x.id === id);
    let data: Record<string, unknown>;
    switch (input.name) {
      case 'document.signed': {
        const signer = who(d.signer_id);
        data = { document_id: s.document_id, signer: { email: signer?.email, name: signer?.name }, signed_at: d.at, ip_address: d.ip_address };
        break;
      }
      case 'document.completed':
        data = { document_id: s.document_id, title: s.title, completed_at: d.at, signers: s.signers.map((x) => ({ email: x.email, name: x.name, signed_at: x.signed_at })) };
        if (s.notify_email) {
          // The owner hears that everyone signed (as of a decline), in the document's language.
          const mail = renderCompletedMail({
            title: s.title,
            documentId: s.document_id,
            completedAt: String(d.at),
            signers: [...s.signers].sort((a, b) => a.order - b.order).map((x) => ({ name: x.name, email: x.email, signedAt: x.signed_at })),
            locale: s.locale,
            ...(deps.branding ? { branding: await deps.branding(s.tenant_id) } : {}),
          });
          await mailer.send({ from: deps.mailFrom, to: { address: s.notify_email }, subject: mail.subject, text: mail.text, html: mail.html, headers: { 'X-Sello-Document': s.document_id } });
        }
        break;
      case 'document.expired':
        data = { document_id: s.document_id, title: s.title, expired_at: d.expired_at };
        break;
      case 'document.declined': {
        const signer = who(d.signer_id);
        data = { document_id: s.document_id, title: s.title, signer: { email: signer?.email, name: signer?.name }, reason: d.reason, declined_at: d.at };
        if (s.notify_email && signer) {
          const mail = renderDeclinedMail({
            title: s.title,
            documentId: s.document_id,
            signerName: signer.name,
            signerEmail: signer.email,
            reason: String(d.reason),
            declinedAt: String(d.at),
            locale: s.locale,
            ...(deps.branding ? { branding: await deps.branding(s.tenant_id) } : {}),
          });
          await mailer.send({ from: deps.mailFrom, to: { address: s.notify_email }, subject: mail.subject, text: mail.text, html: mail.html, headers: { 'X-Sello-Document': s.document_id } });
        }
        break;
      }
      default:
        return { published: false };
    }
    await deps.publishWebhookEvent(input.tenantId, input.name, data);
    return { published: true };
  };

  return { 'signing.notify': notify, 'signing.remind': remind, 'signing.expire': expire, 'signing.webhook': webhook };
}
