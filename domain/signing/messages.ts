/**
 * Message catalogue of everything a signer or a document's owner reads: the signing page, the signing
 * e-mails and the certificate of completion. One entry per language of {@link Language}; Spanish
 * (Mexico) is the default. Dates arrive already formatted (`domain/shared/locale.ts`), so a message
 * only places them in its sentence. Texts are plain: the renderers escape them for HTML.
 */
import type { Language } from '../shared/locale.ts';

/** The readable heading and text of a refusal shown on the signing page, by signing error code. */
export type PageErrorCode = 'invalid_link' | 'document_not_found' | 'document_expired' | 'document_cancelled' | 'document_locked' | 'already_signed' | 'already_declined' | 'not_your_turn';

export interface SigningMessages {
  page: {
    hello: (name: string, email: string) => string;
    intro: string;
    /** The link's expiry; `documentUntil` is given only when the document stays open longer than the link. */
    linkExpires: (at: string) => string;
    linkShorter: (documentUntil: string, maxDays: number) => string;
    messageFromSender: string;
    documentPages: (n: number) => string;
    pageAlt: (i: number, n: number, title: string) => string;
    sign: string;
    howToSign: string;
    typeName: string;
    drawSignature: string;
    typedLabel: string;
    drawLabel: string;
    drawArea: string;
    clearDrawing: string;
    keyboardHint: string;
    consent: string;
    signButton: string;
    decline: string;
    declineReason: string;
    declineButton: string;
    drawFirst: string;
    previewOnly: string;
    openPersonalLinkTitle: string;
    openPersonalLink: string;
    signingTitle: string;
    signedTitle: string;
    signedHeading: string;
    signedText: (name: string, title: string, at: string, signatureId: string, everyone: boolean) => string;
    declinedTitle: string;
    declinedHeading: string;
    declinedText: (title: string) => string;
    errors: Record<PageErrorCode, [string, string]>;
    genericError: string;
    /** A refused form, by the field the signing error names. */
    formErrors: { consent: string; signature: string; typed_name: string; reason: string; unprintable: (chars: string) => string };
  };
  mail: {
    inviteSubject: (title: string) => string;
    reminderSubject: (title: string) => string;
    hello: (name: string) => string;
    invited: (title: string) => string;
    reminder: (title: string) => string;
    openLink: (expires: string) => string;
    button: string;
    personal: (expires: string) => string;
    footer: (company: string) => string;
    declinedSubject: (title: string, name: string) => string;
    declinedText: (name: string, email: string, title: string, id: string, at: string) => string;
    reason: string;
    nowCancelled: string;
    completedSubject: (title: string) => string;
    completedText: (title: string, id: string, at: string) => string;
    signedLine: (name: string, email: string, at: string) => string;
    finalizeHint: (id: string) => string;
  };
  certificate: {
    header: (id: string) => string;
    title: string;
    document: (title: string) => string;
    documentId: (id: string) => string;
    file: (name: string, pages: number, bytes: string) => string;
    sha: string;
    timeline: (created: string, completed: string, finalized: string) => string;
    timesIn: (zone: string) => string;
    signers: (n: number) => string;
    signedAt: (at: string, ip: string, drawn: boolean) => string;
    signatureLine: (id: string, invited: string, viewed: string) => string;
    userAgent: (ua: string) => string;
    placedOn: (pages: string) => string;
    integrity: string;
    integrityText: (n: number) => string;
    verify: (id: string) => string;
    sealed: (name: string) => string;
    /** e.firma documents (issue 29): SHA-256 of the final signed PDF (printed on its separate certificate). */
    finalSha: string;
    /** e.firma signer: how and when they signed. */
    efirmaSignedAt: (at: string, ip: string) => string;
    /** The certificate's holder: name, RFC and CURP (`-` when absent). */
    efirmaHolder: (name: string, rfc: string, curp: string) => string;
    /** A company's FIEL: the legal representative's RFC and CURP. */
    efirmaRepresentative: (rfc: string, curp: string) => string;
    /** Issuer and certificate serial number. */
    efirmaCertificate: (issuer: string, serial: string) => string;
    /** OCSP status at signing time, when it was produced and by which responder. */
    efirmaOcsp: (status: 'good' | 'revoked' | 'unknown', at: string, responder: string) => string;
    /** Closing note of an e.firma document's certificate. */
    efirmaSealed: (name: string) => string;
    auditTrail: string;
    to: (list: string) => string;
    by: (user: string) => string;
    reason: (r: string) => string;
    hash: (h: string) => string;
    stamp: (name: string, at: string, id: string) => string;
  };
}

const es: SigningMessages = {
  page: {
    hello: (name, email) => `Hola, ${name} (${email}).`,
    intro: 'Lee el documento y después fírmalo o recházalo.',
    linkExpires: (at) => `Este enlace es personal y vence el ${at}.`,
    linkShorter: (until, days) => `El documento puede firmarse hasta el ${until}, pero cada enlace dura como máximo ${days} días: si este vence antes, pide al remitente un recordatorio con un enlace nuevo.`,
    messageFromSender: 'Mensaje del remitente',
    documentPages: (n) => `Documento, ${n} ${n === 1 ? 'página' : 'páginas'}`,
    pageAlt: (i, n, title) => `Página ${i} de ${n} de ${title}`,
    sign: 'Firmar',
    howToSign: '¿Cómo quieres firmar?',
    typeName: 'Escribir mi nombre',
    drawSignature: 'Dibujar mi firma',
    typedLabel: 'Tu nombre completo, como firma',
    drawLabel: 'Dibuja tu firma en el recuadro (ratón, lápiz o dedo)',
    drawArea: 'Área para dibujar la firma',
    clearDrawing: 'Borrar dibujo',
    keyboardHint: 'Dibujar requiere un puntero; con teclado, elige «Escribir mi nombre».',
    consent: 'Acepto firmar este documento electrónicamente y que mi firma electrónica tiene la misma validez que una firma autógrafa.',
    signButton: 'Firmar documento',
    decline: 'Rechazar',
    declineReason: '¿Por qué lo rechazas? (el remitente lo verá)',
    declineButton: 'Rechazar la firma',
    drawFirst: 'Primero dibuja tu firma en el recuadro.',
    previewOnly: 'Solo vista previa: este enlace no permite firmar el documento.',
    openPersonalLinkTitle: 'Abre tu enlace personal',
    openPersonalLink: 'Para firmar, abre el enlace personal del correo de invitación que recibiste. Cada firmante tiene su propio enlace.',
    signingTitle: 'Firma',
    signedTitle: 'Firmado',
    signedHeading: 'Gracias, tu firma quedó registrada',
    signedText: (name, title, at, id, everyone) => `${name}, firmaste «${title}» el ${at} (firma ${id}). ${everyone ? 'Todos los firmantes han firmado.' : 'Se invitará a los demás firmantes en su turno.'}`,
    declinedTitle: 'Rechazado',
    declinedHeading: 'Rechazaste firmar',
    declinedText: (title) => `Tu motivo se envió al remitente de «${title}». El documento quedó cancelado.`,
    errors: {
      invalid_link: ['Este enlace no funciona', 'El enlace de firma no es válido o ya venció. Pide al remitente una nueva invitación.'],
      document_not_found: ['Documento no encontrado', 'Este documento no existe o fue eliminado.'],
      document_expired: ['Este documento venció', 'El plazo para firmar terminó antes de que el documento se completara.'],
      document_cancelled: ['Este documento fue cancelado', 'El documento ya no está abierto a firma.'],
      document_locked: ['Este documento está completo', 'Todos los firmantes firmaron y el documento se finalizó.'],
      already_signed: ['Ya firmaste', 'Tu firma está registrada. No necesitas firmar de nuevo.'],
      already_declined: ['Rechazaste este documento', 'Tu respuesta se envió al remitente.'],
      not_your_turn: ['Aún no es tu turno', 'Otros firmantes deben firmar antes que tú. Recibirás un correo cuando sea tu turno.'],
    },
    genericError: 'Algo salió mal',
    formErrors: {
      consent: 'Para firmar, marca la casilla de consentimiento.',
      signature: 'Dibuja tu firma en el recuadro (una imagen de hasta 2000 × 1000 píxeles).',
      typed_name: 'Escribe tu nombre para firmar.',
      reason: 'Escribe el motivo para rechazar.',
      unprintable: (c) => `Tu firma escrita contiene caracteres que el certificado no puede imprimir: ${c}. Escríbela sin ellos o dibuja tu firma.`,
    },
  },
  mail: {
    inviteSubject: (t) => `Firma pendiente: «${t}»`,
    reminderSubject: (t) => `Recordatorio: firma «${t}»`,
    hello: (n) => `Hola, ${n}:`,
    invited: (t) => `Te invitaron a firmar «${t}».`,
    reminder: (t) => `Te recordamos que «${t}» espera tu firma.`,
    openLink: (exp) => `Abre este enlace personal para leer y firmar el documento (no lo reenvíes; vence el ${exp}):`,
    button: 'Revisar y firmar',
    personal: (exp) => `Este enlace es personal: no lo reenvíes. Vence el ${exp}.`,
    footer: (c) => `Enviado por ${c} en nombre del remitente de este documento.`,
    declinedSubject: (t, n) => `Rechazado: «${t}» por ${n}`,
    declinedText: (n, e, t, id, at) => `${n} <${e}> rechazó firmar «${t}» (${id}) el ${at}.`,
    reason: 'Motivo:',
    nowCancelled: 'El documento quedó cancelado.',
    completedSubject: (t) => `Firmado por todos: «${t}»`,
    completedText: (t, id, at) => `Todos los firmantes firmaron «${t}» (${id}); la última firma fue el ${at}.`,
    signedLine: (n, e, at) => `${n} <${e}>: firmó el ${at}`,
    finalizeHint: (id) => `Finalízalo para obtener el PDF sellado y su certificado de conclusión: POST /v1/signing/documents/${id}/finalize.`,
  },
  certificate: {
    header: (id) => `Sello · Certificado de conclusión · ${id}`,
    title: 'Certificado de conclusión',
    document: (t) => `Documento: ${t}`,
    documentId: (id) => `Id. del documento: ${id}`,
    file: (name, pages, bytes) => `Archivo: ${name} (${pages} ${pages === 1 ? 'página' : 'páginas'}, ${bytes} bytes)`,
    sha: 'SHA-256 del PDF cargado:',
    timeline: (c, done, f) => `Creado: ${c}; firmado por todos: ${done}; finalizado: ${f}`,
    timesIn: (z) => `Horas en la zona ${z}.`,
    signers: (n) => `Firmantes (${n})`,
    signedAt: (at, ip, drawn) => `Firmó el ${at} desde la IP ${ip} · método: ${drawn ? 'firma dibujada' : 'nombre escrito'} · dio su consentimiento para firmar electrónicamente`,
    signatureLine: (id, inv, v) => `Firma ${id} · invitado: ${inv} · primera vista: ${v}`,
    userAgent: (ua) => `Agente de usuario: ${ua}`,
    placedOn: (p) => `Firma colocada en la(s) página(s) ${p}`,
    integrity: 'Integridad de la bitácora',
    integrityText: (n) => `Cada entrada de la bitácora lleva el SHA-256 de la anterior; la primera está encadenada al hash del documento. ${n} entradas; hash de la última entrada antes de finalizar:`,
    verify: (id) => `Verificar: npm run cli -- signing audit --document ${id}`,
    sealed: (n) => `Este archivo está sellado con una firma PAdES de «${n}» que cubre todas las páginas y este certificado.`,
    finalSha: 'SHA-256 del PDF firmado (firmas e.firma, sello y datos de validación a largo plazo):',
    efirmaSignedAt: (at, ip) => `Firmó con su e.firma (firma electrónica avanzada del SAT) el ${at} desde la IP ${ip} · firma PAdES incremental en el PDF firmado`,
    efirmaHolder: (n, rfc, curp) => `Titular del certificado: ${n} · RFC: ${rfc} · CURP: ${curp}`,
    efirmaRepresentative: (rfc, curp) => `Representante legal · RFC: ${rfc} · CURP: ${curp}`,
    efirmaCertificate: (issuer, serial) => `Emisor: ${issuer} · número de serie del certificado: ${serial}`,
    efirmaOcsp: (st, at, r) => `Estado OCSP al firmar: ${st === 'good' ? 'vigente' : st === 'revoked' ? 'revocado' : 'desconocido'} (respuesta del ${at}, ${r})`,
    efirmaSealed: (n) => `Las firmas e.firma están en el PDF firmado, cada una como revisión PAdES incremental; «${n}» lo sella al final con las respuestas OCSP y los certificados (PAdES B-LT). Este certificado es un archivo aparte, sellado por «${n}».`,
    auditTrail: 'Bitácora de auditoría',
    to: (l) => `a ${l}`,
    by: (u) => `por ${u}`,
    reason: (r) => `motivo: ${r}`,
    hash: (h) => `hash ${h}`,
    stamp: (n, at, id) => `Firmado por ${n} · ${at} · ${id}`,
  },
};

const en: SigningMessages = {
  page: {
    hello: (name, email) => `Hello ${name} (${email}).`,
    intro: 'Please read the document below, then sign it or decline.',
    linkExpires: (at) => `This link is personal and expires ${at}.`,
    linkShorter: (until, days) => `The document can be signed until ${until}, but each link lasts at most ${days} days: if this one expires first, ask the sender for a reminder with a new link.`,
    messageFromSender: 'Message from the sender',
    documentPages: (n) => `Document, ${n} page${n === 1 ? '' : 's'}`,
    pageAlt: (i, n, title) => `Page ${i} of ${n} of ${title}`,
    sign: 'Sign',
    howToSign: 'How do you want to sign?',
    typeName: 'Type my name',
    drawSignature: 'Draw my signature',
    typedLabel: 'Your full name, as your signature',
    drawLabel: 'Draw your signature in the box (mouse, pen or finger)',
    drawArea: 'Signature drawing area',
    clearDrawing: 'Clear drawing',
    keyboardHint: 'Drawing needs a pointer; with a keyboard, choose "Type my name".',
    consent: 'I agree to sign this document electronically, and that my electronic signature is as binding as a handwritten one.',
    signButton: 'Sign document',
    decline: 'Decline',
    declineReason: 'Why do you decline? (the sender will see this)',
    declineButton: 'Decline to sign',
    drawFirst: 'Draw your signature in the box first.',
    previewOnly: 'Preview only: this link cannot sign the document.',
    openPersonalLinkTitle: 'Open your personal link',
    openPersonalLink: 'To sign, open the personal link in the invitation e-mail you received. Each signer has their own link.',
    signingTitle: 'Signing',
    signedTitle: 'Signed',
    signedHeading: 'Thank you, your signature is recorded',
    signedText: (name, title, at, id, everyone) => `${name}, you signed "${title}" on ${at} (signature ${id}). ${everyone ? 'Every signer has signed.' : 'The other signers will be invited in turn.'}`,
    declinedTitle: 'Declined',
    declinedHeading: 'You declined to sign',
    declinedText: (title) => `Your reason was sent to the sender of "${title}". The document is cancelled.`,
    errors: {
      invalid_link: ['This link does not work', 'The signing link is invalid or has expired. Ask the sender for a new invitation.'],
      document_not_found: ['Document not found', 'This document does not exist or was deleted.'],
      document_expired: ['This document has expired', 'The signing period ended before the document was completed.'],
      document_cancelled: ['This document was cancelled', 'The document is no longer open for signing.'],
      document_locked: ['This document is completed', 'Every signer signed and the document was finalized.'],
      already_signed: ['You already signed', 'Your signature is recorded. You will not need to sign again.'],
      already_declined: ['You declined this document', 'Your answer was sent to the sender.'],
      not_your_turn: ['Not your turn yet', 'Other signers must sign before you. You will receive an e-mail when it is your turn.'],
    },
    genericError: 'Something went wrong',
    formErrors: {
      consent: 'To sign, tick the consent box.',
      signature: 'Draw your signature in the box (an image of at most 2000 × 1000 pixels).',
      typed_name: 'Type your name to sign.',
      reason: 'Write a reason to decline.',
      unprintable: (c) => `Your typed signature contains characters the certificate cannot print: ${c}. Type it without them, or draw your signature.`,
    },
  },
  mail: {
    inviteSubject: (t) => `Please sign "${t}"`,
    reminderSubject: (t) => `Reminder: please sign "${t}"`,
    hello: (n) => `Hello ${n},`,
    invited: (t) => `You are invited to sign "${t}".`,
    reminder: (t) => `This is a reminder that "${t}" is waiting for your signature.`,
    openLink: (exp) => `Open this personal link to read and sign the document (do not forward it; it expires ${exp}):`,
    button: 'Review and sign',
    personal: (exp) => `This link is personal: do not forward it. It expires ${exp}.`,
    footer: (c) => `Sent by ${c} on behalf of the sender of this document.`,
    declinedSubject: (t, n) => `Declined: "${t}" by ${n}`,
    declinedText: (n, e, t, id, at) => `${n} <${e}> declined to sign "${t}" (${id}) on ${at}.`,
    reason: 'Reason:',
    nowCancelled: 'The document is now cancelled.',
    completedSubject: (t) => `Signed by everyone: "${t}"`,
    completedText: (t, id, at) => `Every signer signed "${t}" (${id}); the last signature was on ${at}.`,
    signedLine: (n, e, at) => `${n} <${e}>: signed on ${at}`,
    finalizeHint: (id) => `Finalize it to get the sealed PDF and its certificate of completion: POST /v1/signing/documents/${id}/finalize.`,
  },
  certificate: {
    header: (id) => `Sello · Certificate of completion · ${id}`,
    title: 'Certificate of completion',
    document: (t) => `Document: ${t}`,
    documentId: (id) => `Document id: ${id}`,
    file: (name, pages, bytes) => `File: ${name} (${pages} page${pages === 1 ? '' : 's'}, ${bytes} bytes)`,
    sha: 'SHA-256 of the uploaded PDF:',
    timeline: (c, done, f) => `Created ${c}; all signers signed ${done}; finalized ${f}`,
    timesIn: (z) => `Times in the ${z} time zone.`,
    signers: (n) => `Signers (${n})`,
    signedAt: (at, ip, drawn) => `Signed at ${at} from IP ${ip} · method: ${drawn ? 'drawn signature' : 'typed name'} · consent to sign electronically given`,
    signatureLine: (id, inv, v) => `Signature id ${id} · invited ${inv} · first viewed ${v}`,
    userAgent: (ua) => `User agent: ${ua}`,
    placedOn: (p) => `Signature placed on page(s) ${p}`,
    integrity: 'Audit trail integrity',
    integrityText: (n) => `Each audit entry carries the SHA-256 of the previous one, the first chained to the document hash above. ${n} entries; hash of the last entry before finalize:`,
    verify: (id) => `Verify: npm run cli -- signing audit --document ${id}`,
    sealed: (n) => `This file is sealed with a PAdES signature by "${n}" covering every page and this certificate.`,
    finalSha: 'SHA-256 of the signed PDF (e.firma signatures, seal and long-term validation data):',
    efirmaSignedAt: (at, ip) => `Signed with their e.firma (SAT advanced electronic signature) at ${at} from IP ${ip} · incremental PAdES signature in the signed PDF`,
    efirmaHolder: (n, rfc, curp) => `Certificate holder: ${n} · RFC: ${rfc} · CURP: ${curp}`,
    efirmaRepresentative: (rfc, curp) => `Legal representative · RFC: ${rfc} · CURP: ${curp}`,
    efirmaCertificate: (issuer, serial) => `Issuer: ${issuer} · certificate serial number: ${serial}`,
    efirmaOcsp: (st, at, r) => `OCSP status at signing: ${st} (response of ${at}, ${r})`,
    efirmaSealed: (n) => `The e.firma signatures are in the signed PDF, each an incremental PAdES revision; "${n}" seals it last with the OCSP responses and certificates (PAdES B-LT). This certificate is a separate file, sealed by "${n}".`,
    auditTrail: 'Audit trail',
    to: (l) => `to ${l}`,
    by: (u) => `by ${u}`,
    reason: (r) => `reason: ${r}`,
    hash: (h) => `hash ${h}`,
    stamp: (n, at, id) => `Signed by ${n} · ${at} · ${id}`,
  },
};

/** The catalogue of a language. */
export const SIGNING_MESSAGES: Record<Language, SigningMessages> = { es, en };
