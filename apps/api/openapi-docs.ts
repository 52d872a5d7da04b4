/**
 * What the OpenAPI document (`/openapi.json`) says that the routes' validation schemas cannot: written
 * into the document only, by @fastify/swagger's `transformObject`, never into what a route validates or
 * writes (issue 30, item 1).
 * - An `operationId` for every operation (camelCase, unique), so generated clients have method names.
 * - The request bodies of the upload routes, which read their multipart bodies themselves
 *   (apps/api/multipart.ts) and so declare no `body` schema: their form fields, the files' accepted
 *   types (as `encoding.contentType`) and, on the OCR routes, the JSON/base64 alternative.
 * - The 200 answers of the binary downloads with their real media types.
 * - The server the document is served by (relative, so the document works on any deployment).
 */
type Json = Record<string, unknown>;

/** A multipart file part. */
const file = (description: string): Json => ({ type: 'string', format: 'binary', description });
const text = (description: string, extra: Json = {}): Json => ({ type: 'string', description, ...extra });
const binary = (description: string): Json => ({ type: 'string', format: 'binary', description });

const FACE_IMAGE_TYPES = 'image/jpeg, image/png, image/webp';
const FINGERPRINT_IMAGE_TYPES = 'image/png, image/jpeg, image/tiff, image/bmp, image/x-wsq';
const OCR_FILE_TYPES = 'image/jpeg, image/png, application/pdf';

/** A required multipart/form-data body: `files` are binary parts with their accepted types, `fields` text parts. */
function multipart(files: Record<string, { description: string; types: string }>, fields: Record<string, Json>, required: string[], description: string): Json {
  const properties: Record<string, Json> = {};
  const encoding: Record<string, Json> = {};
  for (const [name, f] of Object.entries(files)) {
    properties[name] = file(`${f.description} Accepted: ${f.types}.`);
    encoding[name] = { contentType: f.types };
  }
  Object.assign(properties, fields);
  return {
    required: true,
    description,
    content: {
      'multipart/form-data': { schema: { type: 'object', ...(required.length ? { required } : {}), properties }, encoding },
    },
  };
}

const FACE_IMAGE = (what: string) => ({ description: `${what} JPG, PNG or WebP judged from the bytes, at most 5 MB, at least 100x100 px.`, types: FACE_IMAGE_TYPES });
const FINGERPRINT_FIELDS = {
  dpi: text('Resolution of `image` in ppi (250-1500) when it is not 500; the image is resampled to 500 ppi.', { pattern: '^[0-9.]+$' }),
};
const FINGERPRINT_FILES = {
  image: { description: 'Fingerprint image (send `image` or `template`): PNG, JPEG, TIFF, BMP or WSQ, at most 5 MB, 500 ppi unless `dpi` says otherwise.', types: FINGERPRINT_IMAGE_TYPES },
  template: { description: 'ISO/IEC 19794-2:2005 minutiae record (send `image` or `template`).', types: 'application/octet-stream' },
};
const METADATA = text('JSON object as a string, at most 16 KiB.', { contentMediaType: 'application/json' });

/**
 * OCR routes: multipart files (or base64 text in the same fields), or an `application/json` object whose
 * file fields are base64 strings (plain, base64url or `data:` URL).
 */
function ocrBody(files: Record<string, string>, fields: Record<string, Json>, description: string): Json {
  const mp = multipart(
    Object.fromEntries(Object.entries(files).map(([name, d]) => [name, { description: `${d} A file, or its base64 text in this field. 10 MB at most.`, types: OCR_FILE_TYPES }])),
    fields,
    [],
    description,
  );
  const jsonProps: Record<string, Json> = Object.fromEntries(
    Object.entries(files).map(([name, d]) => [name, text(`${d} Base64 (or base64url, or a \`data:\` URL) of a JPG, PNG or PDF, 10 MB at most.`, { contentEncoding: 'base64' })]),
  );
  Object.assign(jsonProps, fields);
  (mp.content as Json)['application/json'] = { schema: { type: 'object', properties: jsonProps } };
  return mp;
}

/** The OCR routes' optional `subject_id` (issue 28: erasure of the call's stored answer; `ocrSubjectId`). */
const OCR_SUBJECT_ID = text(
  "Optional: your id of the person the document is about (1-256 characters without control characters, as face and fingerprint subject ids). Ties this extraction's stored traces to a data subject so `POST /v1/privacy/erasures {subject_id}` reaches them: the answer stored for an `Idempotency-Key` is removed by that erasure. Without it, such a stored answer stays until the key expires (`IDEMPOTENCY_TTL_MS`, 24 hours by default).",
  { minLength: 1, maxLength: 256 },
);
const IDENTITY_TYPE = text('`ine` (default) or `passport`.', { enum: ['ine', 'passport'] });
const BOOL_TEXT = (d: string) => text(`${d} \`true\` or \`false\` (also \`1\`/\`0\`, \`yes\`/\`no\`).`, { enum: ['true', 'false', '1', '0', 'yes', 'no'] });

const PDF_DOCUMENT = { description: 'The PDF, at most 10 MiB.', types: 'application/pdf' };

/** Request bodies of the upload routes, by `METHOD /path` (OpenAPI path template). */
export const UPLOAD_BODIES: Record<string, Json> = {
  'POST /v1/face/verify': multipart({ image1: FACE_IMAGE('First face.'), image2: FACE_IMAGE('Second face.') }, {}, ['image1', 'image2'], 'Two images, each with exactly one face.'),
  'POST /v1/face/detect': multipart({ image: FACE_IMAGE('The image.') }, { min_confidence: text('Minimum detector score 0-1, default 0.5.', { pattern: '^[0-9.]+$' }) }, ['image'], 'One image; every face of at least 80x80 px is listed.'),
  'POST /v1/face/analyze': multipart(
    { image: FACE_IMAGE('The image, exactly one face.') },
    {
      attributes: { type: 'array', items: { type: 'string', enum: ['age', 'gender', 'emotion', 'race'] }, description: 'Attributes to estimate (default all): repeated fields, a JSON-array string or a comma-separated list.' },
      actions: { type: 'array', items: { type: 'string', enum: ['age', 'gender', 'emotion', 'race'] }, description: 'Alias of `attributes`.' },
    },
    ['image'],
    'One image with exactly one face.',
  ),
  'POST /v1/face/landmarks': multipart({ image: FACE_IMAGE('The image, exactly one face.') }, { model: text('`68_point` (default) or `5_point`.', { enum: ['68_point', '5_point'] }) }, ['image'], 'One image with exactly one face.'),
  'POST /v1/face/liveness': multipart({ image: FACE_IMAGE('The image, exactly one face.') }, { threshold: text('Liveness threshold 0-1, default 0.5.', { pattern: '^[0-9.]+$' }) }, ['image'], 'One image with exactly one face.'),
  'POST /v1/face-matching/enroll': multipart(
    { image: FACE_IMAGE('The face to enroll, exactly one face.') },
    {
      subject_id: text('Your id of the person, 1-256 characters, unique within your account.', { minLength: 1, maxLength: 256 }),
      quality_score: text('Optional quality 0-1.', { pattern: '^[0-9.]+$' }),
      liveness_score: text('Optional liveness 0-1 (computed when absent).', { pattern: '^[0-9.]+$' }),
      enrollment_source: text('Optional free text (where the image came from).'),
      metadata: METADATA,
    },
    ['image', 'subject_id'],
    'The face and the subject it belongs to.',
  ),
  'POST /v1/face-matching/search': multipart(
    { image: FACE_IMAGE('The probe face.') },
    { threshold: text('Minimum similarity 0-1, default 0.6.', { pattern: '^[0-9.]+$' }), limit: text('Most matches to return (integer).', { pattern: '^[0-9]+$' }) },
    ['image'],
    'The probe face.',
  ),
  'POST /v1/face-matching/verify/{subjectId}': multipart({ image: FACE_IMAGE('The probe face.') }, { threshold: text('Minimum similarity 0-1, default 0.6.', { pattern: '^[0-9.]+$' }) }, ['image'], 'The probe face.'),
  'POST /v1/fingerprint-matching/enroll': multipart(
    FINGERPRINT_FILES,
    {
      ...FINGERPRINT_FIELDS,
      subject_id: text('Your id of the person, 1-256 characters.', { minLength: 1, maxLength: 256 }),
      finger_position: text('ANSI/NIST-ITL finger code 0-10 (default 0, or the ISO record\'s).', { pattern: '^[0-9]+$' }),
      metadata: METADATA,
    },
    ['subject_id'],
    'An `image` or a `template`, and the subject it belongs to.',
  ),
  'POST /v1/fingerprint-matching/search': multipart(
    FINGERPRINT_FILES,
    { ...FINGERPRINT_FIELDS, threshold: text('Minimum score 0-100.', { pattern: '^[0-9.]+$' }), limit: text('Most matches to return (integer).', { pattern: '^[0-9]+$' }) },
    [],
    'An `image` or a `template` (one of them is required).',
  ),
  'POST /v1/fingerprint-matching/verify/{subjectId}': multipart(
    FINGERPRINT_FILES,
    { ...FINGERPRINT_FIELDS, threshold: text('Minimum score 0-100.', { pattern: '^[0-9.]+$' }) },
    [],
    'An `image` or a `template` (one of them is required).',
  ),
  'POST /v1/ocr/extract/id': ocrBody(
    { front: 'Front of the INE, or the passport page (required; `image` is an alias).', image: 'Alias of `front`.', back: 'Back of the INE (optional: enables MRZ validation).' },
    { document_type: IDENTITY_TYPE, include_authenticity: BOOL_TEXT('Also run the authenticity check.'), subject_id: OCR_SUBJECT_ID },
    'multipart/form-data with files (or base64 text fields), or a JSON object with base64 strings. `front` (or `image`) is required.',
  ),
  'POST /v1/ocr/extract/document': ocrBody(
    { image: 'The bill (required; `front` is an alias).', front: 'Alias of `image`.' },
    { document_type: text('Required: the kind of bill.', { enum: ['electricity_bill', 'phone_bill', 'cable_bill'] }), subject_id: OCR_SUBJECT_ID },
    'multipart/form-data with a file (or base64 text), or a JSON object with a base64 string. `image` and `document_type` are required.',
  ),
  'POST /v1/ocr/verify/authenticity': ocrBody(
    { image: 'The document image (required; `front` is an alias).', front: 'Alias of `image`.', back: 'Back of the INE (optional).' },
    { document_type: text('`ine` or `passport` (optional: detected).', { enum: ['ine', 'passport'] }), subject_id: OCR_SUBJECT_ID },
    'multipart/form-data with files (or base64 text fields), or a JSON object with base64 strings. `image` is required.',
  ),
  'POST /v1/signing/documents': multipart(
    { document: PDF_DOCUMENT },
    {
      title: text('Title shown to signers.'),
      signers: text('JSON array of signers: `{email, name, role?, order?, fields?}` (see `POST /v1/signing/create` for the fields).', { contentMediaType: 'application/json' }),
      description: text('Optional description, 2,000 characters kept.'),
      message: text('Optional message to the signers, 4,000 characters kept.'),
      expiry_date: text('YYYY-MM-DD: open until the end of that day UTC (default 30 days).', { format: 'date' }),
      notify_email: text('Where declines and the completion (every signer signed) are e-mailed (optional).', { format: 'email' }),
      language: text("Language signers read (pages, e-mails, certificate): `es` or `en`, a region such as `es-MX` accepted; empty: the tenant's setting, else Spanish."),
      time_zone: text("IANA time zone of the dates signers read, e.g. `America/Tijuana`; empty: the tenant's setting, else America/Mexico_City."),
    },
    ['document', 'title', 'signers'],
    'The PDF to sign and its signers. For a JSON body with the PDF in base64, use `POST /v1/signing/create`.',
  ),
  'POST /v1/signing/verify': multipart({ document: { description: 'The signed PDF to check.', types: 'application/pdf' } }, {}, ['document'], 'The PDF to verify.'),
};

/** The removed OCR endpoints take any body and always answer 400 `not_supported`. */
const REMOVED_OCR_BODY: Json = {
  required: false,
  description: 'Ignored: the endpoint was removed and answers 400 `not_supported`.',
  content: { 'multipart/form-data': { schema: { type: 'object', properties: { image: binary('Ignored.') } } } },
};
UPLOAD_BODIES['POST /v1/ocr/extract'] = REMOVED_OCR_BODY;
UPLOAD_BODIES['POST /v1/ocr/extract/receipt'] = REMOVED_OCR_BODY;

const PDF = { 'application/pdf': { schema: binary('The PDF.') } };

/** 200 answers of the binary downloads, by `METHOD /path`. */
export const BINARY_RESPONSES: Record<string, Json> = {
  'GET /v1/signing/documents/{document_id}/download': { description: 'The signed PDF (PAdES), as an attachment.', content: PDF },
  'GET /v1/signing/download/{document_id}': { description: 'The signed PDF (PAdES), as an attachment (same answer as `/v1/signing/documents/{document_id}/download`).', content: PDF },
  'GET /v1/signing/documents/{document_id}/certificate': { description: 'The certificate of completion, a PDF.', content: PDF },
  'GET /v1/usage/export/{export_id}/download': {
    description: 'The export as an attachment: CSV for `format=csv`, JSON Lines for `format=json`.',
    content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } },
  },
  'GET /api/deployments/{deployment_id}/logo': { description: "The deployment's logo, re-encoded as PNG.", content: { 'image/png': { schema: binary('PNG image.') } } },
  'GET /v1/fingerprint-matching/templates/{templateId}/iso': {
    description: 'The ISO/IEC 19794-2:2005 record (binary), as an attachment `<templateId>.iso`.',
    content: { 'application/octet-stream': { schema: binary('ISO/IEC 19794-2:2005 record.') } },
  },
};

/** A structured error body (spec, Errors) whose `code` is one of `codes`. */
const structuredError = (codes: string[]): Json => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['success', 'error'],
      properties: { success: { const: false }, error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string', enum: codes }, message: { type: 'string' }, details: { type: 'object' } } } },
    },
  },
});

/** Error answers of the binary routes, where their routes declare none themselves (a route's own win). */
const EXTRA_RESPONSES: Record<string, Record<string, Json>> = {
  'GET /api/deployments/{deployment_id}/logo': {
    '404': { description: '`deployment_not_found`: no such deployment, no logo, or the deployment is deactivated.', content: structuredError(['deployment_not_found']) },
  },
  'GET /v1/usage/export/{export_id}/download': {
    '403': { description: '`invalid_download_link`: the signature is wrong or missing, or the link has expired.', content: structuredError(['invalid_download_link']) },
    '404': { description: '`export_not_found`: no such export.', content: structuredError(['export_not_found']) },
    '410': { description: '`export_not_available`: the file has expired (retention per plan) or is not ready.', content: structuredError(['export_not_available']) },
  },
};

/** Operation ids by `METHOD /path`; a route missing here gets one derived from its method and path. */
export const OPERATION_IDS: Record<string, string> = {
  'GET /v1/credits/balance': 'getCreditBalance',
  'GET /v1/api-keys': 'listApiKeys',
  'POST /v1/api-keys': 'createApiKey',
  'DELETE /v1/api-keys/{keyId}': 'revokeApiKey',
  'GET /v1/status': 'getStatus',
  'GET /ready': 'getReadiness',
  'GET /v1/email/verify': 'verifyEmail',
  'POST /v1/email/verify/batch': 'verifyEmailBatch',
  'POST /v1/webhooks/endpoints': 'createWebhookEndpoint',
  'GET /v1/webhooks/endpoints': 'listWebhookEndpoints',
  'PUT /v1/webhooks/endpoints/{endpoint_id}': 'updateWebhookEndpoint',
  'DELETE /v1/webhooks/endpoints/{endpoint_id}': 'deleteWebhookEndpoint',
  'POST /v1/webhooks/endpoints/{endpoint_id}/test': 'testWebhookEndpoint',
  'GET /v1/webhooks/endpoints/{endpoint_id}/deliveries': 'listWebhookDeliveries',
  'GET /v1/webhooks/events': 'listWebhookEvents',
  'POST /v1/face-matching/enroll': 'enrollFace',
  'POST /v1/face-matching/search': 'searchFaces',
  'POST /v1/face-matching/verify/{subjectId}': 'verifyFaceSubject',
  'GET /v1/face-matching/embeddings': 'listFaceEmbeddings',
  'DELETE /v1/face-matching/embeddings': 'deleteFaceEmbeddings',
  'DELETE /v1/face-matching/embeddings/{embeddingId}': 'deleteFaceEmbedding',
  'POST /v1/ocr/extract/id': 'extractIdDocument',
  'POST /v1/ocr/extract/document': 'extractAddressDocument',
  'POST /v1/ocr/verify/authenticity': 'verifyDocumentAuthenticity',
  'POST /v1/ocr/extract': 'extractOcrRemoved',
  'POST /v1/ocr/extract/receipt': 'extractReceiptRemoved',
  'POST /v1/face/verify': 'verifyFaces',
  'POST /v1/face/analyze': 'analyzeFace',
  'POST /v1/face/detect': 'detectFaces',
  'POST /v1/face/landmarks': 'getFaceLandmarks',
  'POST /v1/face/liveness': 'checkFaceLiveness',
  'POST /v1/signing/documents': 'createSigningDocument',
  'GET /v1/signing/documents': 'listSigningDocuments',
  'POST /v1/signing/create': 'createSigningDocumentFromBase64',
  'GET /v1/signing/documents/{document_id}': 'getSigningDocument',
  'DELETE /v1/signing/documents/{document_id}': 'deleteSigningDocument',
  'GET /v1/signing/status/{document_id}': 'getSigningStatus',
  'POST /v1/signing/documents/{document_id}/send-invitations': 'sendSigningInvitations',
  'POST /v1/signing/documents/{document_id}/finalize': 'finalizeSigningDocument',
  'GET /v1/signing/documents/{document_id}/download': 'downloadSignedDocument',
  'GET /v1/signing/download/{document_id}': 'downloadSignedDocumentAlt',
  'GET /v1/signing/documents/{document_id}/certificate': 'getSigningCertificate',
  'GET /v1/signing/documents/{document_id}/public-preview': 'getSigningPublicPreview',
  'POST /v1/signing/documents/{document_id}/cancel': 'cancelSigningDocument',
  'POST /v1/signing/verify': 'verifySignedPdf',
  'GET /v1/usage/summary': 'getUsageSummary',
  'GET /v1/usage/stats': 'getUsageStats',
  'GET /v1/usage/realtime': 'getUsageRealtime',
  'GET /v1/usage/credits': 'getUsageCredits',
  'POST /v1/usage/alerts': 'createUsageAlert',
  'GET /v1/usage/alerts': 'listUsageAlerts',
  'GET /v1/usage/alerts/{alert_id}': 'getUsageAlert',
  'PUT /v1/usage/alerts/{alert_id}': 'updateUsageAlert',
  'DELETE /v1/usage/alerts/{alert_id}': 'deleteUsageAlert',
  'POST /v1/usage/export': 'createUsageExport',
  'GET /v1/usage/export/{export_id}': 'getUsageExport',
  'GET /v1/usage/export/{export_id}/download': 'downloadUsageExport',
  'POST /v1/fingerprint-matching/enroll': 'enrollFingerprint',
  'POST /v1/fingerprint-matching/search': 'searchFingerprints',
  'POST /v1/fingerprint-matching/verify/{subjectId}': 'verifyFingerprintSubject',
  'GET /v1/fingerprint-matching/templates': 'listFingerprintTemplates',
  'DELETE /v1/fingerprint-matching/templates': 'deleteFingerprintTemplates',
  'GET /v1/fingerprint-matching/templates/{templateId}/iso': 'exportFingerprintTemplateIso',
  'DELETE /v1/fingerprint-matching/templates/{templateId}': 'deleteFingerprintTemplate',
  'GET /api/deployments': 'listDeployments',
  'POST /api/deployments/create': 'createDeployment',
  'GET /api/deployments/{deployment_id}/status': 'getDeploymentStatus',
  'PUT /api/deployments/{deployment_id}': 'updateDeployment',
  'POST /api/deployments/{deployment_id}/retry': 'retryDeployment',
  'POST /api/deployments/{deployment_id}/deactivate': 'deactivateDeployment',
  'GET /api/deployments/{deployment_id}/logo': 'getDeploymentLogo',
  'POST /v1/mex/renapo/get-curp': 'getCurp',
  'POST /v1/mex/ine/validate-voter-list': 'validateVoterList',
  'POST /v1/mex/curp/validate': 'validateCurp',
  'POST /v1/privacy/erasures': 'createPrivacyErasure',
  'GET /v1/privacy/erasures/{erasureId}': 'getPrivacyErasure',
  'GET /v1/privacy/retention': 'getPrivacyRetention',
  'PUT /v1/privacy/retention': 'setPrivacyRetention',
  'POST /v1/privacy/offboarding': 'offboardTenant',
};

/** `get` + `/v1/usage/export/{export_id}` -> `getV1UsageExportByExportId`: the fallback for a route missing from {@link OPERATION_IDS}. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `by-${seg.slice(1, -1)}` : seg))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** The document's tags, in the order /docs lists them. */
export const TAGS: { name: string; description: string }[] = [
  { name: 'platform', description: 'Service status and readiness.' },
  { name: 'credits', description: 'Credit balance of your account.' },
  { name: 'api-keys', description: 'API keys of your account.' },
  { name: 'face', description: 'Face verification (1:1), detection, analysis, landmarks and passive liveness on uploaded images.' },
  { name: 'face-matching', description: 'Enrolled face embeddings: enroll, search (1:N), verify against a subject (1:1).' },
  { name: 'fingerprint-matching', description: 'Enrolled fingerprint templates: enroll, search (1:N), verify (1:1), ISO/IEC 19794-2 export.' },
  { name: 'ocr', description: 'INE and passport extraction, proof-of-address bills, document authenticity.' },
  { name: 'mex', description: 'Mexican registries: CURP (RENAPO) and the INE voter list.' },
  { name: 'email', description: 'E-mail address verification, one or in batches.' },
  { name: 'signing', description: 'Electronic signature of PDFs: documents, signers, signed download, certificate, verification.' },
  { name: 'webhooks', description: 'Webhook endpoints, deliveries and event types.' },
  { name: 'usage', description: 'Usage summary, statistics, credits, alerts and exports.' },
  { name: 'deployments', description: 'Branded deployments (white-label signing pages and e-mails).' },
  { name: 'privacy', description: "Erasure of a person's personal data (crypto-shredding)." },
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/**
 * @fastify/swagger `transformObject`: adds the operation ids, the upload bodies, the binary answers and
 * a relative server to the generated document. An operation whose route declares its own `requestBody`
 * keeps it; a binary route's 200 replaces whatever its route declared (it writes bytes, not JSON).
 */
export function documentTransform(input: { openapiObject: Partial<Record<string, unknown>> } | { swaggerObject: unknown }): Partial<Record<string, unknown>> {
  if (!('openapiObject' in input)) throw new Error('The Sello document is OpenAPI 3, not Swagger 2');
  const { openapiObject } = input;
  const paths = (openapiObject.paths ?? {}) as Record<string, Record<string, Json>>;
  const used = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const key = `${method.toUpperCase()} ${path}`;
      let id = OPERATION_IDS[key] ?? derivedOperationId(method, path);
      while (used.has(id)) id = `${id}2`;
      used.add(id);
      op.operationId = id;
      const body = UPLOAD_BODIES[key];
      if (body && !op.requestBody) op.requestBody = body;
      if (key === 'POST /v1/ocr/extract' || key === 'POST /v1/ocr/extract/receipt') op.deprecated = true;
      const responses = { ...((op.responses ?? {}) as Record<string, Json>) };
      const ok = BINARY_RESPONSES[key];
      if (ok) {
        // Keep the billing headers the edge documents on every answer.
        const headers = (responses['200']?.headers ?? Object.values(responses).find((r) => r.headers)?.headers) as Json | undefined;
        responses['200'] = { ...ok, ...(headers ? { headers } : {}) };
      }
      for (const [code, r] of Object.entries(EXTRA_RESPONSES[key] ?? {})) responses[code] ??= r;
      op.responses = responses;
    }
  }
  const usedTags = new Set(Object.values(paths).flatMap((item) => METHODS.flatMap((m) => ((item[m]?.tags as string[] | undefined) ?? []))));
  const known = new Set(TAGS.map((t) => t.name));
  const tags = [...TAGS.filter((t) => usedTags.has(t.name)), ...[...usedTags].filter((t) => !known.has(t)).map((name) => ({ name }))];
  return { ...openapiObject, tags, servers: [{ url: '/', description: 'The Sello deployment serving this document' }] };
}
