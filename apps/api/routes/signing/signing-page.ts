/**
 * The signing page served by the API process (`/sign/*`, no API key: the personal link's token is the
 * credential). Forms post `application/x-www-form-urlencoded` (a parser scoped to these routes), so a
 * typed signature works without JavaScript; drawing uses a canvas whose PNG travels in `drawn_png`.
 * Every answer is `no-store`, `no-referrer` (the token never leaks through a Referer), framed by no one,
 * and scripts/styles run only with the page's nonce.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ApiApp } from '../../types.ts';
import { tokenHash, type SigningService } from '../../../../workflows/signing/service.ts';
import { SigningError } from '../../../../domain/signing/errors.ts';
import { effectiveStatus, type DocumentState, type SignerState } from '../../../../domain/signing/document.ts';
import { DEFAULT_LOCALE, formatDateTime, type Locale } from '../../../../domain/shared/locale.ts';
import { SIGNING_MESSAGES } from '../../../../domain/signing/messages.ts';
import { EFIRMA_PAGE_MESSAGES } from '../../../../domain/signing/messages-efirma.ts';
import { unprintableCharacters } from '../../../../domain/signing/fonts.ts';
import { assertSignerMayAct } from '../../../../domain/signing/decide.ts';
import { renderMessagePage, renderPreviewPage, renderSigningPage } from './page-render.ts';
import type { Branding } from '../../../../workflows/signing/emails.ts';

/**
 * White-label hook (issue 15): the branding of a page, from the document's tenant (null when the page
 * has no document yet) and the request's `Host` (a deployment's domain brands its public pages).
 */
export type PageBrandingLookup = (o: { tenantId: string | null; host: string | undefined }) => Promise<Branding | undefined>;

function page(reply: FastifyReply, status: number, html: string, nonce: string) {
  reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', `default-src 'none'; img-src 'self' https: data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`);
  return reply.send(html);
}

/** A refusal as a page in the reader's language (the document's, when known; else Spanish). */
function errorPage(reply: FastifyReply, error: unknown, nonce: string, branding?: Branding, locale: Locale = DEFAULT_LOCALE) {
  if (!(error instanceof SigningError)) throw error;
  const m = SIGNING_MESSAGES[locale.language].page;
  const [heading, text] = (m.errors as Partial<Record<string, [string, string]>>)[error.code] ?? (error.code === 'efirma_required' ? EFIRMA_PAGE_MESSAGES[locale.language].typedRefused : [m.genericError, error.message]);
  const status = error.code === 'invalid_link' ? 403 : error.code === 'document_not_found' ? 404 : error.status;
  return page(reply, status, renderMessagePage({ title: heading, nonce, heading, text, branding, locale }), nonce);
}

/** The form error of a refused signature, in the reader's language (by the field the error names). */
function formError(error: SigningError, locale: Locale): string {
  const m = SIGNING_MESSAGES[locale.language].page.formErrors;
  const field = String((error.details as Record<string, unknown> | undefined)?.field ?? '');
  return field === 'consent' || field === 'signature' || field === 'typed_name' || field === 'reason' ? m[field] : error.message;
}

/** The expiry of the link a token opened (the latest link when none matches, which openLink prevents). */
function linkExpiry(signer: SignerState, token: string): string | undefined {
  const h = tokenHash(token);
  return (signer.links.find((l) => l.token_hash === h) ?? signer.links.at(-1))?.expires_at;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '');
const ua = (r: FastifyRequest) => str(r.headers['user-agent']) || 'unknown';

/** The signing page's fields from the document, the signer and the token they opened. */
function pageInput(state: DocumentState, signer: SignerState, token: string) {
  return {
    title: state.title,
    locale: state.locale,
    documentId: state.document_id,
    documentTitle: state.title,
    // Both of the sender's messages, as the invitation shows them (the custom one of the sending first).
    message: [state.custom_message, state.message].filter((x): x is string => !!x && x.trim() !== '').join('\n\n') || null,
    signerName: signer.name,
    signerEmail: signer.email,
    pages: state.file.pages,
    token,
    expiresAt: linkExpiry(signer, token) ?? state.expiry_date,
    documentExpiresAt: state.expiry_date,
    signatureType: signer.signature_type,
  };
}

/** `limit`: the public routes' rate limit (apps/api/public-limits.ts), applied to every `/sign/*` route. */
export function registerSigningPage(app: ApiApp, service: SigningService, branding?: PageBrandingLookup, limit?: onRequestHookHandler): void {
  const brand = (request: FastifyRequest, tenantId: string | null = null) => (branding ? branding({ tenantId, host: request.headers.host }) : Promise.resolve(undefined));
  const config = { auth: false as const, rateClass: 'light' as const, errorShape: 'structured' as const };
  const hide = { hide: true };

  void app.register(async (scope) => {
    if (limit) scope.addHook('onRequest', limit);
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 2 * 1024 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.get('/sign/:document_id', { config, schema: hide }, async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      const { document_id } = request.params as { document_id: string };
      const token = str((request.query as Record<string, unknown>).t);
      if (!token) {
        const m = SIGNING_MESSAGES[DEFAULT_LOCALE.language].page;
        return page(reply, 200, renderMessagePage({ title: m.signingTitle, nonce, heading: m.openPersonalLinkTitle, text: m.openPersonalLink, branding: await brand(request) }), nonce);
      }
      let locale = DEFAULT_LOCALE;
      try {
        const { state, signer } = await service.openLink(document_id, token);
        locale = state.locale;
        const status = effectiveStatus(state, service.now());
        if (status === 'expired') throw new SigningError('document_expired', 'expired');
        if (signer.status === 'signed') throw new SigningError('already_signed', 'signed');
        if (signer.status === 'declined') throw new SigningError('already_declined', 'declined');
        if (state.status === 'cancelled') throw new SigningError('document_cancelled', 'cancelled');
        if (state.status === 'completed') throw new SigningError('document_locked', 'locked');
        await service.recordView(document_id, token, request.ip, ua(request));
        return page(
          reply,
          200,
          renderSigningPage({ ...pageInput(state, signer, token), nonce, branding: await brand(request, state.tenant_id) }),
          nonce,
        );
      } catch (error) {
        return errorPage(reply, error, nonce, await brand(request), locale);
      }
    });

    scope.get('/sign/:document_id/pages/:page', { config, schema: hide }, async (request, reply) => {
      const { document_id, page: p } = request.params as { document_id: string; page: string };
      const token = str((request.query as Record<string, unknown>).t);
      try {
        const { state, signer } = await service.openLink(document_id, token);
        // Served while the signer may act (the rule of signing itself): not for a cancelled, expired or finalized
        // document, nor to a signer who signed or declined (a cancelled one's pages were still served).
        assertSignerMayAct(state, signer.id, service.now());
        const png = await service.pageImage(state, Number(p.replace(/\.png$/, '')));
        return reply.header('content-type', 'image/png').header('cache-control', 'private, no-store').header('referrer-policy', 'no-referrer').send(png);
      } catch (error) {
        if (error instanceof SigningError) return pageImageError(reply, error);
        throw error;
      }
    });

    scope.post('/sign/:document_id/sign', { config, schema: hide }, async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      const { document_id } = request.params as { document_id: string };
      const b = (request.body ?? {}) as Record<string, unknown>;
      const token = str(b.t);
      const method = str(b.method) === 'drawn' ? 'drawn' : 'typed';
      const dataUrl = str(b.drawn_png);
      const png = method === 'drawn' && dataUrl.startsWith('data:image/png;base64,') ? Buffer.from(dataUrl.slice('data:image/png;base64,'.length), 'base64') : null;
      let locale = DEFAULT_LOCALE;
      try {
        const typed = method === 'typed' ? unprintableCharacters(str(b.typed_name)) : [];
        if (typed.length) {
          // A typed signature the certificate could not print (emoji...): the form again, with the reason.
          const { state, signer } = await service.openLink(document_id, token);
          const input = pageInput(state, signer, token);
          return page(reply, 400, renderSigningPage({ ...input, nonce, branding: await brand(request, state.tenant_id), error: SIGNING_MESSAGES[state.locale.language].page.formErrors.unprintable(typed.join(' ')) }), nonce);
        }
        const { state, signer } = await service.sign(document_id, token, { consent: str(b.consent) === 'yes', method, typedName: str(b.typed_name) || null, drawnPng: png, ip: request.ip, userAgent: ua(request) });
        const done = state.status === 'signed';
        const m = SIGNING_MESSAGES[state.locale.language].page;
        const at = formatDateTime(signer.signed_at ?? service.now(), state.locale);
        return page(reply, 200, renderMessagePage({ title: m.signedTitle, nonce, locale: state.locale, branding: await brand(request, state.tenant_id), heading: m.signedHeading, text: m.signedText(signer.name, state.title, at, signer.signature_id ?? '', done) }), nonce);
      } catch (error) {
        if (error instanceof SigningError && error.code === 'invalid_signer') {
          // Show the form again with the message (missing consent, empty name, bad drawing).
          try {
            const { state, signer } = await service.openLink(document_id, token);
            return page(reply, 400, renderSigningPage({ ...pageInput(state, signer, token), nonce, branding: await brand(request, state.tenant_id), error: formError(error, state.locale) }), nonce);
          } catch (inner) {
            return errorPage(reply, inner, nonce, await brand(request));
          }
        }
        if (error instanceof SigningError) {
          // The document's language for its refusals (already signed, not your turn...), when the link opens it.
          locale = await service.openLink(document_id, token).then((r) => r.state.locale, () => DEFAULT_LOCALE);
        }
        return errorPage(reply, error, nonce, await brand(request), locale);
      }
    });

    scope.post('/sign/:document_id/decline', { config, schema: hide }, async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      const { document_id } = request.params as { document_id: string };
      const b = (request.body ?? {}) as Record<string, unknown>;
      try {
        const { state } = await service.decline(document_id, str(b.t), { reason: str(b.reason), ip: request.ip, userAgent: ua(request) });
        const m = SIGNING_MESSAGES[state.locale.language].page;
        return page(reply, 200, renderMessagePage({ title: m.declinedTitle, nonce, locale: state.locale, branding: await brand(request, state.tenant_id), heading: m.declinedHeading, text: m.declinedText(state.title) }), nonce);
      } catch (error) {
        const locale = error instanceof SigningError ? await service.openLink(document_id, str(b.t)).then((r) => r.state.locale, () => DEFAULT_LOCALE) : DEFAULT_LOCALE;
        return errorPage(reply, error, nonce, await brand(request), locale);
      }
    });

    scope.get('/sign/preview/:document_id', { config, schema: hide }, async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      const { document_id } = request.params as { document_id: string };
      const q = request.query as Record<string, unknown>;
      try {
        const state = await service.openPreview(document_id, Number(str(q.exp)), str(q.sig));
        const query = `exp=${encodeURIComponent(str(q.exp))}&sig=${encodeURIComponent(str(q.sig))}`;
        return page(reply, 200, renderPreviewPage({ title: state.title, nonce, locale: state.locale, branding: await brand(request, state.tenant_id), documentId: document_id, documentTitle: state.title, pages: state.file.pages, query }), nonce);
      } catch (error) {
        return errorPage(reply, error, nonce, await brand(request));
      }
    });

    scope.get('/sign/preview/:document_id/pages/:page', { config, schema: hide }, async (request, reply) => {
      const { document_id, page: p } = request.params as { document_id: string; page: string };
      const q = request.query as Record<string, unknown>;
      try {
        const state = await service.openPreview(document_id, Number(str(q.exp)), str(q.sig));
        const png = await service.pageImage(state, Number(p.replace(/\.png$/, '')));
        return reply.header('content-type', 'image/png').header('cache-control', 'private, no-store').send(png);
      } catch (error) {
        if (error instanceof SigningError) return pageImageError(reply, error);
        throw error;
      }
    });
  });
}

/**
 * A page image that cannot be served, as plain text: 403 for a bad link, 422 for a page too costly to
 * render (`pdf_too_complex`, remembered for the page), 503 with Retry-After when the PDF threads are busy,
 * 404 otherwise.
 */
function pageImageError(reply: FastifyReply, error: SigningError): FastifyReply {
  const text = (status: number, body: string) => reply.status(status).header('content-type', 'text/plain').header('cache-control', 'no-store').send(body);
  if (error.code === 'invalid_link') return text(403, 'not available');
  if (error.code === 'pdf_too_complex') return text(422, 'This page is too complex to display');
  if (error.code === 'pdf_busy') {
    reply.header('retry-after', '5');
    return text(503, 'Busy, try again shortly');
  }
  return text(404, 'not available');
}
