/**
 * Every e-mail of the signing capability, rendered in one place (plain-text and HTML parts), in the
 * document's language and time zone (Spanish, Mexico City by default; `domain/signing/messages.ts`). Branding
 * (company name, colour, logo URL) is a parameter with Sello's defaults, so a white-label deployment
 * passes its own.
 */

import { DEFAULT_LOCALE, LANGUAGE_TAGS, formatDateTime, type Locale } from '../../domain/shared/locale.ts';
import { SIGNING_MESSAGES } from '../../domain/signing/messages.ts';

/** White-label branding of signing pages and e-mails. */
export interface Branding {
  companyName: string;
  /** CSS colour (hex `#rrggbb`). */
  primaryColor: string;
  /** Absolute URL of a logo image, or null for none. */
  logoUrl: string | null;
}

export const DEFAULT_BRANDING: Branding = { companyName: 'Sello', primaryColor: '#1f4fd1', logoUrl: null };

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Keeps a colour only when it is a plain hex colour (it is interpolated into CSS). */
export function safeColor(c: string): string {
  return /^#[0-9a-fA-F]{3,8}$/.test(c) ? c : DEFAULT_BRANDING.primaryColor;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

function layout(b: Branding, locale: Locale, title: string, bodyHtml: string): string {
  const color = safeColor(b.primaryColor);
  const logo = b.logoUrl && /^https?:\/\//.test(b.logoUrl) ? `<img src="${escapeHtml(b.logoUrl)}" alt="${escapeHtml(b.companyName)}" height="32">` : `<strong style="font-size:18px;color:${color}">${escapeHtml(b.companyName)}</strong>`;
  return `<!doctype html><html lang="${LANGUAGE_TAGS[locale.language]}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:16px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<div style="margin-bottom:16px">${logo}</div>
${bodyHtml}
<p style="font-size:12px;color:#555;margin-top:24px">${escapeHtml(SIGNING_MESSAGES[locale.language].mail.footer(b.companyName))}</p>
</div></body></html>`;
}

function button(b: Branding, href: string, label: string): string {
  return `<p><a href="${escapeHtml(href)}" style="display:inline-block;background:${safeColor(b.primaryColor)};color:#fff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:bold">${escapeHtml(label)}</a></p>`;
}

export interface InvitationMailInput {
  kind: 'invitation' | 'reminder';
  signerName: string;
  title: string;
  message: string | null;
  customMessage: string | null;
  link: string;
  /** ISO time the link expires (shown in the reader's words and time zone). */
  expiresAt: string;
  branding?: Branding;
  /** The document's language and time zone; Spanish, Mexico City by default. */
  locale?: Locale;
}

/** Invitation or reminder to sign: the signer's personal link (never shown to the document's owner). */
export function renderInvitationMail(i: InvitationMailInput): RenderedMail {
  const b = i.branding ?? DEFAULT_BRANDING;
  const locale = i.locale ?? DEFAULT_LOCALE;
  const m = SIGNING_MESSAGES[locale.language].mail;
  const expires = formatDateTime(i.expiresAt, locale);
  const subject = i.kind === 'reminder' ? m.reminderSubject(i.title) : m.inviteSubject(i.title);
  const note = [i.customMessage, i.message].filter((x): x is string => !!x && x.trim() !== '');
  const lead = i.kind === 'reminder' ? m.reminder(i.title) : m.invited(i.title);
  const text = [m.hello(i.signerName), '', lead, ...(note.length ? ['', ...note] : []), '', m.openLink(expires), i.link, '', `- ${b.companyName}`].join('\n');
  const html = layout(
    b,
    locale,
    subject,
    `<p>${escapeHtml(m.hello(i.signerName))}</p>
<p>${escapeHtml(lead)}</p>
${note.map((n) => `<blockquote style="border-left:3px solid #ccc;margin:0 0 12px;padding-left:12px;white-space:pre-wrap">${escapeHtml(n)}</blockquote>`).join('\n')}
${button(b, i.link, m.button)}
<p style="font-size:13px;color:#444">${escapeHtml(m.personal(expires))}</p>`,
  );
  return { subject, text, html };
}

/** The owner's notice that a signer declined, with the reason (docuseal#355, #672). */
export function renderDeclinedMail(i: { title: string; documentId: string; signerName: string; signerEmail: string; reason: string; declinedAt: string; branding?: Branding; locale?: Locale }): RenderedMail {
  const b = i.branding ?? DEFAULT_BRANDING;
  const locale = i.locale ?? DEFAULT_LOCALE;
  const m = SIGNING_MESSAGES[locale.language].mail;
  const subject = m.declinedSubject(i.title, i.signerName);
  const lead = m.declinedText(i.signerName, i.signerEmail, i.title, i.documentId, formatDateTime(i.declinedAt, locale));
  const text = [lead, '', m.reason, i.reason, '', m.nowCancelled].join('\n');
  const html = layout(
    b,
    locale,
    subject,
    `<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(m.reason)}</p><blockquote style="border-left:3px solid #c00;margin:0;padding-left:12px;white-space:pre-wrap">${escapeHtml(i.reason)}</blockquote>
<p>${escapeHtml(m.nowCancelled)}</p>`,
  );
  return { subject, text, html };
}

/**
 * The owner's notice that every signer signed (to `notify_email`, like the decline notice): who signed
 * and when, in the document's language and time zone, and how to finalize.
 */
export function renderCompletedMail(i: { title: string; documentId: string; completedAt: string; signers: { name: string; email: string; signedAt: string | null }[]; branding?: Branding; locale?: Locale }): RenderedMail {
  const b = i.branding ?? DEFAULT_BRANDING;
  const locale = i.locale ?? DEFAULT_LOCALE;
  const m = SIGNING_MESSAGES[locale.language].mail;
  const subject = m.completedSubject(i.title);
  const lead = m.completedText(i.title, i.documentId, formatDateTime(i.completedAt, locale));
  const lines = i.signers.map((x) => m.signedLine(x.name, x.email, x.signedAt ? formatDateTime(x.signedAt, locale) : '-'));
  const text = [lead, '', ...lines.map((l) => `- ${l}`), '', m.finalizeHint(i.documentId)].join('\n');
  const html = layout(
    b,
    locale,
    subject,
    `<p>${escapeHtml(lead)}</p>
<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>
<p style="font-size:13px;color:#444">${escapeHtml(m.finalizeHint(i.documentId))}</p>`,
  );
  return { subject, text, html };
}
