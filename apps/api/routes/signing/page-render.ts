/**
 * Every HTML page of the signing flow, rendered in one place (server-side, no framework): the signing
 * page, the view-only preview, and the result and error pages. Branding (company name, colour, logo
 * URL) is a parameter with Sello's defaults. Accessibility: labelled controls, a visible focus ring,
 * keyboard-only signing through the typed signature, text contrast >= 4.5:1, a layout that fits a
 * 360 px wide phone screen.
 */
import { DEFAULT_BRANDING, escapeHtml, safeColor, type Branding } from '../../../../workflows/signing/emails.ts';
import { DEFAULT_LOCALE, LANGUAGE_TAGS, formatDateTime, type Locale } from '../../../../domain/shared/locale.ts';
import { SIGNING_MESSAGES } from '../../../../domain/signing/messages.ts';
import { LINK_MAX_DAYS, type SignatureType } from '../../../../domain/signing/document.ts';
import { EFIRMA_PAGE_MESSAGES } from '../../../../domain/signing/messages-efirma.ts';
import { EFIRMA_ASSETS } from './efirma-assets.ts';

export interface PageShell {
  title: string;
  nonce: string;
  branding?: Branding;
  /** The document's language and time zone (Spanish, Mexico City when there is no document). */
  locale?: Locale;
}

function shell(p: PageShell, body: string, script = '', scriptSrcs: readonly string[] = []): string {
  const b = p.branding ?? DEFAULT_BRANDING;
  const color = safeColor(b.primaryColor);
  // An https URL, or a same-origin path (a deployment's stored logo, `/api/deployments/<id>/logo`).
  const logo = b.logoUrl && /^(https:\/\/|\/(?![/\\]))/.test(b.logoUrl) ? `<img src="${escapeHtml(b.logoUrl)}" alt="${escapeHtml(b.companyName)}" height="32">` : `<span class="brand">${escapeHtml(b.companyName)}</span>`;
  return `<!doctype html>
<html lang="${LANGUAGE_TAGS[(p.locale ?? DEFAULT_LOCALE).language]}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(p.title)} · ${escapeHtml(b.companyName)}</title>
<style nonce="${p.nonce}">
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1a1a1a;background:#f4f5f7;line-height:1.5}
header{background:#fff;border-bottom:4px solid ${color};padding:12px 16px}.brand{font-weight:700;font-size:1.25rem;color:${color}}
main{max-width:900px;margin:0 auto;padding:16px}h1{font-size:1.4rem;margin:.5rem 0}
.card{background:#fff;border-radius:8px;padding:16px;margin:16px 0;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.pages img{display:block;width:100%;height:auto;border:1px solid #c8c8c8;margin:0 0 12px;background:#fff}
label{font-weight:600;display:block;margin:.5rem 0 .25rem}input[type=text],input[type=password],textarea{width:100%;font-size:1rem;padding:10px;border:1px solid #6b6b6b;border-radius:6px}
input[type=file]{display:block;width:100%;max-width:100%;font-size:1rem;padding:8px;border:1px dashed #6b6b6b;border-radius:6px;background:#fafafa}
button:disabled{opacity:.6;cursor:progress}.status{color:#1f4e79;font-weight:600}#efirma-form .consent{margin:14px 0 4px}
fieldset{border:1px solid #c8c8c8;border-radius:6px;padding:12px;margin:12px 0}legend{font-weight:700;padding:0 4px}
.choice label{display:inline;font-weight:400;margin-right:16px}.consent{display:flex;gap:10px;align-items:flex-start}.consent label{font-weight:400;margin:0}
.consent input{width:22px;height:22px;flex:none;margin-top:2px}
canvas{display:block;width:100%;max-width:600px;height:180px;border:2px dashed #6b6b6b;border-radius:6px;background:#fff;touch-action:none}
button{font-size:1rem;padding:12px 20px;border-radius:6px;border:2px solid ${color};cursor:pointer;margin:8px 8px 0 0}
.primary{background:${color};color:#fff}.secondary{background:#fff;color:#1a1a1a;border-color:#6b6b6b}.danger{background:#fff;color:#a00000;border-color:#a00000}
:focus-visible{outline:3px solid #ffb000;outline-offset:2px}.muted{color:#4a4a4a;font-size:.9rem}.banner{background:#fff4d6;border:1px solid #b58100;padding:10px;border-radius:6px}
.error{color:#a00000;font-weight:600}.hidden{display:none}.message{white-space:pre-wrap;overflow-wrap:anywhere;margin:.5rem 0 0}
h1,p{overflow-wrap:anywhere}
</style></head>
<body><header>${logo}</header><main id="main">${body}</main>${script ? `<script nonce="${p.nonce}">${script}</script>` : ''}${scriptSrcs.map((src) => `<script nonce="${p.nonce}" src="${escapeHtml(src)}"></script>`).join('')}</body></html>`;
}

export interface SigningPageInput extends PageShell {
  documentId: string;
  documentTitle: string;
  message: string | null;
  signerName: string;
  signerEmail: string;
  pages: number;
  token: string;
  /** ISO time this signer's link expires. */
  expiresAt: string;
  /** ISO time the document expires (`expiry_date`); said too when later than the link's expiry. */
  documentExpiresAt: string;
  error?: string | null;
  /** How this signer signs (issue 29): `efirma` shows the e.firma form instead of typed/drawn. Default `simple`. */
  signatureType?: SignatureType;
}

/**
 * The e.firma form (issue 29): labelled `.cer` and `.key` pickers, the key's password, consent and a button;
 * its script (`assets/efirma-sign.js`, with node-forge) decrypts and signs in the browser. The texts the
 * script shows travel in a JSON data block (not executed, so the CSP does not apply to it).
 */
function efirmaSection(p: SigningPageInput): string {
  const language = (p.locale ?? DEFAULT_LOCALE).language;
  const m = SIGNING_MESSAGES[language].page;
  const x = EFIRMA_PAGE_MESSAGES[language];
  const e = escapeHtml;
  const texts = JSON.stringify({ working: x.working, refused: x.refused, errors: x.errors }).replace(/</g, '\\u003c');
  return `<section class="card" aria-labelledby="efirma-h"><h2 id="efirma-h">${e(x.heading)}</h2>
<p>${e(x.intro)}</p><p class="muted">${e(x.keyStays)}</p>
<noscript><p class="error">${e(x.noScript)}</p></noscript>
<form id="efirma-form" data-document="${e(p.documentId)}" novalidate>
<input type="hidden" name="t" value="${e(p.token)}">
<label for="efirma-cer">${e(x.cerLabel)}</label><input type="file" id="efirma-cer" name="cer" accept=".cer,application/pkix-cert,application/x-x509-ca-cert">
<label for="efirma-key">${e(x.keyLabel)}</label><input type="file" id="efirma-key" name="key" accept=".key,application/pkcs8">
<label for="efirma-password">${e(x.passwordLabel)}</label><input type="password" id="efirma-password" name="password" autocomplete="off" maxlength="256">
<div class="consent"><input type="checkbox" id="efirma-consent" name="consent" value="yes">
<label for="efirma-consent">${e(m.consent)}</label></div>
<p id="efirma-error" class="error" role="alert" aria-live="assertive"></p>
<p id="efirma-status" class="status" role="status" aria-live="polite"></p>
<button type="submit" class="primary" id="efirma-submit">${e(x.button)}</button>
</form><script type="application/json" id="efirma-text">${texts}</script></section>`;
}

const drawScript = (drawFirst: string) => `(function(){
var c=document.getElementById('pad');if(!c)return;var ctx=c.getContext('2d');var drawing=false,drawn=false;
function fit(){var r=c.getBoundingClientRect();var d=window.devicePixelRatio||1;c.width=Math.round(r.width*d);c.height=Math.round(r.height*d);ctx.setTransform(d,0,0,d,0,0);ctx.lineWidth=2.5;ctx.lineCap='round';ctx.lineJoin='round';ctx.strokeStyle='#0d1b5e';drawn=false;}
window.addEventListener('resize',function(){if(!drawn)fit();});
function pos(e){var r=c.getBoundingClientRect();return{x:e.clientX-r.left,y:e.clientY-r.top};}
c.addEventListener('pointerdown',function(e){drawing=true;c.setPointerCapture(e.pointerId);var p=pos(e);ctx.beginPath();ctx.moveTo(p.x,p.y);});
c.addEventListener('pointermove',function(e){if(!drawing)return;var p=pos(e);ctx.lineTo(p.x,p.y);ctx.stroke();drawn=true;});
c.addEventListener('pointerup',function(){drawing=false;});
document.getElementById('clear').addEventListener('click',function(){ctx.clearRect(0,0,c.width,c.height);drawn=false;});
var typed=document.getElementById('m-typed'),draw=document.getElementById('m-drawn');
function sync(){document.getElementById('typed-box').classList.toggle('hidden',!typed.checked);document.getElementById('draw-box').classList.toggle('hidden',!draw.checked);if(draw.checked&&c.width<2)fit();}
typed.addEventListener('change',sync);draw.addEventListener('change',sync);sync();
document.getElementById('sign-form').addEventListener('submit',function(e){
 var err=document.getElementById('form-error');err.textContent='';
 if(draw.checked){if(!drawn){e.preventDefault();err.textContent=${JSON.stringify(drawFirst).replace(/</g, '\\u003c')};return;}document.getElementById('drawn_png').value=c.toDataURL('image/png');}
});
})();`;

/**
 * The signing page of one signer (their personal link), in the document's language. The sender's
 * message is shown in a styled block (class `message`: the page's nonce'd stylesheet, since the
 * Content-Security-Policy refuses `style` attributes). When the document stays open longer than the
 * link (links last {@link LINK_MAX_DAYS} days at most), the page says both dates and why.
 */
export function renderSigningPage(p: SigningPageInput): string {
  const locale = p.locale ?? DEFAULT_LOCALE;
  const m = SIGNING_MESSAGES[locale.language].page;
  const e = escapeHtml;
  const t = e(p.token);
  const imgs = Array.from({ length: p.pages }, (_, i) => `<img src="/sign/${e(p.documentId)}/pages/${i + 1}.png?t=${t}" alt="${e(m.pageAlt(i + 1, p.pages, p.documentTitle))}" loading="${i < 2 ? 'eager' : 'lazy'}">`).join('\n');
  const linkShorter = Date.parse(p.documentExpiresAt) > Date.parse(p.expiresAt);
  const efirma = p.signatureType === 'efirma';
  const body = `
<h1>${e(p.documentTitle)}</h1>
<p>${e(m.hello(p.signerName, p.signerEmail))} ${e(m.intro)} ${e(m.linkExpires(formatDateTime(p.expiresAt, locale)))}</p>
${linkShorter ? `<p class="muted" id="link-expiry-note">${e(m.linkShorter(formatDateTime(p.documentExpiresAt, locale), LINK_MAX_DAYS))}</p>` : ''}
${p.message ? `<div class="card" id="sender-message"><strong>${e(m.messageFromSender)}</strong><p class="message">${e(p.message)}</p></div>` : ''}
${p.error ? `<p class="error" role="alert">${e(p.error)}</p>` : ''}
<section class="card pages" aria-label="${e(m.documentPages(p.pages))}">${imgs}</section>
${efirma ? efirmaSection(p) : `<section class="card" aria-labelledby="sign-h"><h2 id="sign-h">${e(m.sign)}</h2>
<form id="sign-form" method="post" action="/sign/${e(p.documentId)}/sign">
<input type="hidden" name="t" value="${t}"><input type="hidden" name="drawn_png" id="drawn_png" value="">
<fieldset><legend>${e(m.howToSign)}</legend><div class="choice">
<input type="radio" id="m-typed" name="method" value="typed" checked><label for="m-typed">${e(m.typeName)}</label>
<input type="radio" id="m-drawn" name="method" value="drawn"><label for="m-drawn">${e(m.drawSignature)}</label></div>
<div id="typed-box"><label for="typed_name">${e(m.typedLabel)}</label><input type="text" id="typed_name" name="typed_name" autocomplete="name" value="${e(p.signerName)}" maxlength="120"></div>
<div id="draw-box" class="hidden"><label for="pad">${e(m.drawLabel)}</label>
<canvas id="pad" role="img" aria-label="${e(m.drawArea)}" tabindex="0"></canvas>
<button type="button" class="secondary" id="clear">${e(m.clearDrawing)}</button>
<p class="muted">${e(m.keyboardHint)}</p></div>
</fieldset>
<div class="consent"><input type="checkbox" id="consent" name="consent" value="yes" required>
<label for="consent">${e(m.consent)}</label></div>
<p id="form-error" class="error" role="alert" aria-live="assertive"></p>
<button type="submit" class="primary">${e(m.signButton)}</button>
</form></section>`}
<section class="card" aria-labelledby="decline-h"><h2 id="decline-h">${e(m.decline)}</h2>
<form method="post" action="/sign/${e(p.documentId)}/decline"><input type="hidden" name="t" value="${t}">
<label for="reason">${e(m.declineReason)}</label><textarea id="reason" name="reason" rows="3" required maxlength="2000"></textarea>
<button type="submit" class="danger">${e(m.declineButton)}</button></form></section>`;
  return efirma ? shell(p, body, '', EFIRMA_ASSETS.map((a) => a.path)) : shell(p, body, drawScript(m.drawFirst));
}

/** The view-only preview (no signing controls). */
export function renderPreviewPage(p: PageShell & { documentId: string; documentTitle: string; pages: number; query: string }): string {
  const m = SIGNING_MESSAGES[(p.locale ?? DEFAULT_LOCALE).language].page;
  const imgs = Array.from({ length: p.pages }, (_, i) => `<img src="/sign/preview/${escapeHtml(p.documentId)}/pages/${i + 1}.png?${escapeHtml(p.query)}" alt="${escapeHtml(m.pageAlt(i + 1, p.pages, p.documentTitle))}" loading="lazy">`).join('\n');
  return shell(p, `<h1>${escapeHtml(p.documentTitle)}</h1><p class="banner" role="note">${escapeHtml(m.previewOnly)}</p><section class="card pages" aria-label="${escapeHtml(m.documentPages(p.pages))}">${imgs}</section>`);
}

/** A one-message page (result or error). */
export function renderMessagePage(p: PageShell & { heading: string; text: string }): string {
  return shell(p, `<div class="card"><h1>${escapeHtml(p.heading)}</h1><p>${escapeHtml(p.text)}</p></div>`);
}
