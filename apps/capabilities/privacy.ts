/** Erasure requests (`/v1/privacy/erasures`, docs/privacy.md): crypto-shredding of a data subject. */
import { createHmac, randomUUID } from 'node:crypto';
import { COMMITMENTS } from '../../domain/privacy/classification.ts';
import { signingDocuments } from '../../projections/signing/index.ts';
import type { ErasureDeps } from '../../domain/privacy/erasure.ts';
import { getRetention } from '../../domain/privacy/retention.ts';
import { PLANS, type PlanName } from '../../domain/plans/plans.ts';
import { tenantsCollection } from '../../projections/tenants/tenants.ts';
import { SealingEventStore } from '../../infra/privacy/sealing-event-store.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/**
 * Files of a signing document (`signing/<tenant>/<document>/...`, named in workflows/signing/service.ts and
 * efirma.ts) that hold a signer's personal data: drawn signature images (`signature-<signer>-<n>.png`) and
 * every e.firma file (`efirma/`: working PDFs with the signers' certificates, prepared signatures, OCSP
 * responses). The uploaded `original.pdf`, its `page-<n>.png` images and final files are not matched.
 */
const SIGNER_FILE = /\/(signature-[^/]+\.png|efirma\/[^/]+)$/;

/**
 * Use cases: `requestErasure`, `eraseSubject`, `getErasure` (`domain/privacy/erasure.ts`). The subject's key is destroyed
 * through the event store's privacy layer; a platform whose event store was replaced without it (a test
 * override) cannot erase and says so.
 */
export const privacyCapability: CapabilityManifest<ErasureDeps> = {
  name: 'privacy',
  summary: 'Erases a data subject: its face and fingerprint templates crypto-shredded in the log, removed from read models and every vector-index replica.',
  useCases: (platform) => ({
    events: platform.events,
    readModels: platform.readModels,
    destroyKeys: (subjectKey, at) => {
      const events = platform.events;
      if (!(events instanceof SealingEventStore)) return Promise.reject(new Error('erasure needs the event store privacy layer (createEventStore)'));
      return events.keys.destroy(subjectKey, at);
    },
    catchUp: () => platform.projections.catchUp(),
    deleteBlob: (key) => platform.blobs.delete(key),
    forgetResponses: (tenantId, text, options) => platform.idempotency.forgetResponses(tenantId, text, options),
    forgetSubjectResponses: (tenantId, subjectId) => platform.idempotency.forgetSubject(tenantId, subjectId),
    forgetTenantResponses: (tenantId) => platform.idempotency.forgetTenant(tenantId),
    now: () => platform.clock.now(),
    newId: () => `era_${randomUUID().replace(/-/g, '')}`,
    email: {
      // Keyed under a data key of the tenant's own (`erasure-email:<tenant>`): a guessed address cannot be
      // tested against the log without the key store.
      digest: async (tenantId, email) => {
        const events = platform.events;
        if (!(events instanceof SealingEventStore)) throw new Error('erasure needs the event store privacy layer (createEventStore)');
        const { key } = await events.keys.keyFor(`erasure-email:${tenantId}`);
        return createHmac('sha256', key).update(email).digest('hex');
      },
      signerDocuments: async (tenantId, email) => {
        const col = await signingDocuments(platform.readModels);
        const wanted = email.toLowerCase();
        return (await col.find({ tenant_id: tenantId }))
          .filter((d) => d.state.signers.some((x) => x.email.toLowerCase() === wanted))
          .map((d) => ({ documentId: d.id, finalizedAt: d.state.finalized_at, sealed: d.raw[0]?.data[COMMITMENTS] !== undefined, blocked: !!d.blocked }));
      },
      signedDocumentsDays: async (tenantId) => {
        const plan = (await (await tenantsCollection(platform.readModels)).get(tenantId))?.plan;
        const p: PlanName = typeof plan === 'string' && plan in PLANS ? (plan as PlanName) : 'free';
        return (await getRetention(platform.events, tenantId, p)).settings.signed_documents_days;
      },
      eraseMails: (email) => platform.mailer.eraseRecipient?.(email) ?? Promise.resolve(0),
      deleteSignerFiles: async (tenantId, documentId) => {
        let deleted = 0;
        for (const key of await platform.blobs.list(`signing/${tenantId}/${documentId}/`)) {
          if (SIGNER_FILE.test(key) && (await platform.blobs.delete(key))) deleted += 1;
        }
        return deleted;
      },
    },
  }),
  routes: async () => (await import('../api/routes/privacy/erasures.ts')).registerPrivacyRoutes,
};
