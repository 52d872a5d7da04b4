import type { FastifyRequest } from 'fastify';
import type { ApiApp } from '../../types.ts';
import { linkOrigin } from '../../public-origin.ts';
import { publicRateLimit } from '../../public-limits.ts';
import type { Platform } from '../../../platform/types.ts';
import type { SigningRuntime } from '../../../../workflows/signing/runtime.ts';
import { registerCancel } from './cancel-document.ts';
import { registerCertificate } from './certificate.ts';
import { registerConservation } from './conservation.ts';
import { registerCreateAlt } from './create-alt.ts';
import { registerCreateDocument } from './create-document.ts';
import { registerDelete } from './delete-document.ts';
import { registerDownload } from './download-document.ts';
import { registerFinalize } from './finalize-document.ts';
import { registerGetDocument } from './get-document.ts';
import { registerListDocuments } from './list-documents.ts';
import { registerPreview } from './public-preview.ts';
import { registerSendInvitations } from './send-invitations.ts';
import { registerSigningPage } from './signing-page.ts';
import { registerEfirmaRoutes } from './efirma-routes.ts';
import { pageBrandingOf } from '../../../../workflows/deployments/branding.ts';
import { DEFAULT_BRANDING } from '../../../../workflows/signing/emails.ts';
import { registerVerify } from './verify-pdf.ts';

/**
 * `/v1/signing/*` and the signing page `/sign/*`. The lifecycle behind them (the `signing-lifecycle`
 * process manager and its dispatcher) is started by the platform from the signing manifest.
 */
export function registerSigningRoutes(app: ApiApp, platform: Platform, runtime: SigningRuntime): void {
  const s = runtime.service;
  // Links on configured origins only, never on the request's Host (issue 31).
  const originOf = (request: FastifyRequest) => linkOrigin(platform.config, request);
  registerCreateDocument(app, s, originOf);
  registerCreateAlt(app, s, originOf);
  registerListDocuments(app, s);
  registerGetDocument(app, s);
  registerSendInvitations(app, s);
  registerFinalize(app, s);
  registerDownload(app, s);
  registerCertificate(app, s);
  registerConservation(app, s);
  registerDelete(app, s);
  registerPreview(app, s);
  registerCancel(app, s);
  registerVerify(app, s);
  // White-label (issue 15): the page of a deployment's tenant, or answered to a deployment's domain, is branded.
  // Public routes carry no key: a per-address and per-document rate limit instead (issue 31).
  const limit = publicRateLimit(platform, 'sign', { perAddress: platform.config.PUBLIC_RATE_LIMIT_PER_ADDRESS, perDocument: platform.config.PUBLIC_RATE_LIMIT_PER_DOCUMENT });
  registerSigningPage(app, s, async ({ tenantId, host }) => (await pageBrandingOf(platform, { tenantId, host }, DEFAULT_BRANDING)) ?? undefined, limit);
  registerEfirmaRoutes(app, s, runtime.efirma, limit);
}
