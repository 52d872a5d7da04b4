/**
 * Every e-mail of the signing capability, rendered in one place (plain-text and HTML parts). Branding
 * (company name, colour, logo URL) is a parameter with Sello's defaults, so a white-label deployment
 * passes its own.
 */

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

function layout(b: Branding, title: string, bodyHtml: string): string {
  const color = safeColor(b.primaryColor);
  const logo = b.logoUrl && /^https?:\/\//.test(b.logoUrl) ? `<img src="${escapeHtml(b.logoUrl)}" alt="${escapeHtml(b.companyName)}" height="32">` : `<strong style="font-size:18px;color:${color}">${escapeHtml(b.companyName)}</strong>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<div style="margin-bottom:16px">${logo}</div>
${bodyHtml}
<p style="font-size:12px;color:#555;margin-top:24px">Sent by ${escapeHtml(b.companyName)} on behalf of the sender of this document.</p>
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
  expiresAt: string;
  branding?: Branding;
}

/** Invitation or reminder to sign: the signer's personal link (never shown to the document's owner). */
export function renderInvitationMail(i: InvitationMailInput): RenderedMail {
  const b = i.branding ?? DEFAULT_BRANDING;
  const subject = i.kind === 'reminder' ? `Reminder: please sign "${i.title}"` : `Please sign "${i.title}"`;
  const note = [i.customMessage, i.message].filter((x): x is string => !!x && x.trim() !== '');
  const text = [
    `Hello ${i.signerName},`,
    '',
    i.kind === 'reminder' ? `This is a reminder that "${i.title}" is waiting for your signature.` : `You are invited to sign "${i.title}".`,
    ...(note.length ? ['', ...note] : []),
    '',
    `Open this personal link to read and sign the document (do not forward it; it expires ${i.expiresAt}):`,
    i.link,
    '',
    `- ${b.companyName}`,
  ].join('\n');
  const html = layout(
    b,
    subject,
    `<p>Hello ${escapeHtml(i.signerName)},</p>
<p>${i.kind === 'reminder' ? `This is a reminder that <strong>${escapeHtml(i.title)}</strong> is waiting for your signature.` : `You are invited to sign <strong>${escapeHtml(i.title)}</strong>.`}</p>
${note.map((n) => `<blockquote style="border-left:3px solid #ccc;margin:0 0 12px;padding-left:12px;white-space:pre-wrap">${escapeHtml(n)}</blockquote>`).join('\n')}
${button(b, i.link, 'Review and sign')}
<p style="font-size:13px;color:#444">This link is personal: do not forward it. It expires ${escapeHtml(i.expiresAt)}.</p>`,
  );
  return { subject, text, html };
}

/** The owner's notice that a signer declined, with the reason (docuseal#355, #672). */
export function renderDeclinedMail(i: { title: string; documentId: string; signerName: string; signerEmail: string; reason: string; declinedAt: string; branding?: Branding }): RenderedMail {
  const b = i.branding ?? DEFAULT_BRANDING;
  const subject = `Declined: "${i.title}" by ${i.signerName}`;
  const text = [`${i.signerName} <${i.signerEmail}> declined to sign "${i.title}" (${i.documentId}) at ${i.declinedAt}.`, '', 'Reason:', i.reason, '', 'The document is now cancelled.'].join('\n');
  const html = layout(
    b,
    subject,
    `<p><strong>${escapeHtml(i.signerName)}</strong> &lt;${escapeHtml(i.signerEmail)}&gt; declined to sign <strong>${escapeHtml(i.title)}</strong> (${escapeHtml(i.documentId)}) at ${escapeHtml(i.declinedAt)}.</p>
<p>Reason:</p><blockquote style="border-left:3px solid #c00;margin:0;padding-left:12px;white-space:pre-wrap">${escapeHtml(i.reason)}</blockquote>
<p>The document is now cancelled.</p>`,
  );
  return { subject, text, html };
}
