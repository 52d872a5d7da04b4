/**
 * What an e.firma signer reads on the signing page (issue 29), in each {@link Language}: the form's
 * labels and the messages of every refusal, those the browser finds itself (wrong password, a `.key` that
 * does not match the `.cer`...) and those the server answers (by signing error code). Plain texts: the
 * renderer escapes them; the page's script reads them from a JSON data block.
 */
import type { Language } from '../shared/locale.ts';

/** Refusals on the e.firma form: browser-side checks, then the server's signing error codes. */
export type EfirmaPageError =
  | 'unsupported'
  | 'choose_files'
  | 'password_required'
  | 'consent'
  | 'not_certificate'
  | 'not_key'
  | 'wrong_password'
  | 'key_mismatch'
  | 'network'
  | 'efirma_certificate_invalid'
  | 'efirma_not_fiel'
  | 'efirma_certificate_expired'
  | 'efirma_identity_mismatch'
  | 'efirma_untrusted'
  | 'efirma_certificate_revoked'
  | 'efirma_certificate_status_unknown'
  | 'efirma_ocsp_unavailable'
  | 'efirma_signature_invalid'
  | 'efirma_prepare_stale'
  | 'efirma_prepare_not_found'
  | 'rate_limit_exceeded'
  | 'pdf_busy';

export interface EfirmaPageMessages {
  heading: string;
  intro: string;
  keyStays: string;
  cerLabel: string;
  keyLabel: string;
  passwordLabel: string;
  button: string;
  working: string;
  noScript: string;
  /** Error heading shown before the reason. */
  refused: string;
  /** Page of a typed/drawn form posted for an e.firma signer (`efirma_required`): heading and text. */
  typedRefused: [string, string];
  errors: Record<EfirmaPageError, string>;
}

export const EFIRMA_PAGE_MESSAGES: Record<Language, EfirmaPageMessages> = {
  es: {
    heading: 'Firmar con e.firma',
    intro: 'Este documento se firma con tu e.firma (FIEL) del SAT: elige tu certificado (.cer) y tu clave privada (.key) y escribe la contraseña de la clave.',
    keyStays: 'Tu clave privada y su contraseña no salen de tu navegador: se usan aquí para firmar y solo se envía la firma.',
    cerLabel: 'Certificado de e.firma (.cer)',
    keyLabel: 'Clave privada (.key)',
    passwordLabel: 'Contraseña de la clave privada',
    button: 'Firmar con e.firma',
    working: 'Verificando tu certificado y firmando…',
    noScript: 'Para firmar con e.firma tu navegador necesita JavaScript activado.',
    refused: 'No se firmó el documento.',
    typedRefused: ['Este documento se firma con e.firma', 'Quien envió el documento pidió que lo firmes con tu e.firma del SAT. Vuelve a abrir tu enlace y usa «Firmar con e.firma».'],
    errors: {
      unsupported: 'Tu navegador no puede firmar con e.firma (le falta Web Crypto). Usa una versión reciente de Chrome, Edge, Firefox o Safari.',
      choose_files: 'Elige tu certificado (.cer) y tu clave privada (.key).',
      password_required: 'Escribe la contraseña de tu clave privada.',
      consent: 'Marca la casilla para aceptar firmar electrónicamente.',
      not_certificate: 'El archivo de certificado no es un certificado .cer válido. Elige el .cer de tu e.firma.',
      not_key: 'El archivo de clave no es una clave privada .key del SAT. Elige el .key de tu e.firma.',
      wrong_password: 'La contraseña no abre tu clave privada. Revisa la contraseña e inténtalo de nuevo.',
      key_mismatch: 'La clave privada (.key) no corresponde al certificado (.cer). Elige el par de archivos de la misma e.firma.',
      network: 'No se pudo conectar con el servidor. Revisa tu conexión e inténtalo de nuevo.',
      efirma_certificate_invalid: 'El certificado no se pudo leer. Elige el .cer de tu e.firma.',
      efirma_not_fiel: 'Ese certificado es un Certificado de Sello Digital (CSD), no una e.firma. Usa los archivos de tu e.firma (FIEL).',
      efirma_certificate_expired: 'Tu e.firma está vencida (o aún no es válida). Renuévala en el SAT para poder firmar.',
      efirma_identity_mismatch: 'El RFC o la CURP de tu e.firma no coinciden con los que indicó quien envió el documento.',
      efirma_untrusted: 'El certificado no fue emitido por el SAT (no pertenece a una autoridad de confianza).',
      efirma_certificate_revoked: 'Tu e.firma fue revocada según el SAT. No se puede firmar con ella.',
      efirma_certificate_status_unknown: 'El SAT no reconoce este certificado (estado desconocido). No se puede firmar con él.',
      efirma_ocsp_unavailable: 'No pudimos consultar con el SAT si tu e.firma está vigente. No se registró ninguna firma; inténtalo de nuevo en unos minutos.',
      efirma_signature_invalid: 'La firma no corresponde a tu certificado. Nada quedó registrado; inténtalo de nuevo.',
      efirma_prepare_stale: 'Otra persona firmó el documento mientras tanto. Vuelve a firmar: se preparará sobre la versión actual.',
      efirma_prepare_not_found: 'La firma preparada expiró. Vuelve a firmar.',
      rate_limit_exceeded: 'Demasiados intentos. Espera un minuto e inténtalo de nuevo.',
      pdf_busy: 'El servicio está ocupado. Inténtalo de nuevo en unos segundos.',
    },
  },
  en: {
    heading: 'Sign with e.firma',
    intro: 'This document is signed with your SAT e.firma (FIEL): choose your certificate (.cer) and your private key (.key) and type the key\'s password.',
    keyStays: 'Your private key and its password never leave your browser: they are used here to sign, and only the signature is sent.',
    cerLabel: 'e.firma certificate (.cer)',
    keyLabel: 'Private key (.key)',
    passwordLabel: 'Private key password',
    button: 'Sign with e.firma',
    working: 'Checking your certificate and signing…',
    noScript: 'Signing with e.firma needs JavaScript enabled in your browser.',
    refused: 'The document was not signed.',
    typedRefused: ['This document is signed with e.firma', 'The sender asked you to sign with your SAT e.firma. Open your link again and use "Sign with e.firma".'],
    errors: {
      unsupported: 'Your browser cannot sign with e.firma (it lacks Web Crypto). Use a recent Chrome, Edge, Firefox or Safari.',
      choose_files: 'Choose your certificate (.cer) and your private key (.key).',
      password_required: 'Type your private key\'s password.',
      consent: 'Tick the box to agree to sign electronically.',
      not_certificate: 'The certificate file is not a valid .cer certificate. Choose your e.firma\'s .cer.',
      not_key: 'The key file is not a SAT .key private key. Choose your e.firma\'s .key.',
      wrong_password: 'The password does not open your private key. Check it and try again.',
      key_mismatch: 'The private key (.key) does not belong to the certificate (.cer). Choose both files of the same e.firma.',
      network: 'The server could not be reached. Check your connection and try again.',
      efirma_certificate_invalid: 'The certificate could not be read. Choose your e.firma\'s .cer.',
      efirma_not_fiel: 'That certificate is a digital seal certificate (CSD), not an e.firma. Use your e.firma (FIEL) files.',
      efirma_certificate_expired: 'Your e.firma has expired (or is not valid yet). Renew it at the SAT to sign.',
      efirma_identity_mismatch: 'The RFC or CURP of your e.firma does not match the one the sender gave.',
      efirma_untrusted: 'The certificate was not issued by the SAT (it does not chain to a trusted authority).',
      efirma_certificate_revoked: 'Your e.firma was revoked according to the SAT. It cannot sign.',
      efirma_certificate_status_unknown: 'The SAT does not know this certificate (status unknown). It cannot sign.',
      efirma_ocsp_unavailable: 'We could not ask the SAT whether your e.firma is valid. No signature was recorded; try again in a few minutes.',
      efirma_signature_invalid: 'The signature does not match your certificate. Nothing was recorded; try again.',
      efirma_prepare_stale: 'Someone else signed the document meanwhile. Sign again: it will be prepared on the current version.',
      efirma_prepare_not_found: 'The prepared signature expired. Sign again.',
      rate_limit_exceeded: 'Too many attempts. Wait a minute and try again.',
      pdf_busy: 'The service is busy. Try again in a few seconds.',
    },
  },
};
