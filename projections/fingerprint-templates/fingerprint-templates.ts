/**
 * Fingerprint-templates projection: the read model `fingerprint_templates` (one document per template,
 * kept with `is_active: false` after deletion) from the fingerprint events; `npm run cli -- replay`
 * rebuilds it. `changed_position` is the global position of the last enrollment or deletion applied, which
 * the in-process gallery cache (domain/fingerprint/gallery.ts) follows. Idempotent per event.
 */
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Filter } from '../../infra/ports/read-models.ts';
import type { Projection, ProjectionDeps } from '../projection.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES, type TemplateDoc } from '../../domain/fingerprint/deps.ts';
import {
  FINGERPRINT_EVENT_TYPES, type FingerprintTemplateDeleted, type FingerprintTemplateEnrolled, type FingerprintTemplatesPurged, type FingerprintVerified,
} from '../../domain/fingerprint/events.ts';
import { isErasedEvent } from '../../domain/privacy/classification.ts';
import { PRIVACY_SUBJECT_ERASED, type PrivacySubjectErased } from '../../domain/privacy/erasure.ts';

async function apply(events: readonly RecordedEvent[], deps: ProjectionDeps): Promise<void> {
  const col = await deps.store.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
  const markDeleted = async (doc: TemplateDoc, at: string, position: number) => {
    if (doc.is_active) await col.put(doc.id, { ...doc, is_active: false, deleted_at: at, changed_position: position });
  };
  for (const e of events) {
    switch (e.type) {
      case 'FingerprintTemplateEnrolled': {
        const d = e.data as FingerprintTemplateEnrolled['data'];
        if (isErasedEvent(e)) break; // crypto-shredded: no template to list or match (docs/privacy.md)
        if (await col.get(d.template_id)) break;
        await col.put(d.template_id, {
          id: d.template_id, tenant_id: d.tenant_id, subject_id: d.subject_id, finger_position: d.finger_position, width: d.width, height: d.height,
          minutiae_b64: d.minutiae_b64, ...(d.field_b64 !== undefined ? { field_b64: d.field_b64 } : {}), minutiae_count: d.minutiae_count, quality_score: d.quality_score, template_version: d.template_version, source: d.source,
          metadata: d.metadata, created_at: d.created_at, is_active: true, deleted_at: null, verification_count: 0, last_verified_at: null,
          enrolled_position: e.globalPosition, changed_position: e.globalPosition, last_verification_position: 0,
        });
        break;
      }
      case 'FingerprintTemplateDeleted': {
        const d = e.data as FingerprintTemplateDeleted['data'];
        const doc = await col.get(d.template_id);
        if (doc && doc.tenant_id === d.tenant_id) await markDeleted(doc, d.deleted_at, e.globalPosition);
        break;
      }
      case 'FingerprintTemplatesPurged': {
        const d = e.data as FingerprintTemplatesPurged['data'];
        const filter: Filter = { tenant_id: d.tenant_id, is_active: true };
        if (d.subject_id !== null) filter.subject_id = d.subject_id;
        for (const doc of await col.find(filter)) if (doc.enrolled_position < e.globalPosition) await markDeleted(doc, d.purged_at, e.globalPosition);
        break;
      }
      case 'FingerprintVerified': {
        const d = e.data as FingerprintVerified['data'];
        const doc = await col.get(d.template_id);
        if (!doc || doc.tenant_id !== d.tenant_id || e.globalPosition <= doc.last_verification_position) break;
        await col.put(doc.id, { ...doc, verification_count: doc.verification_count + 1, last_verified_at: d.verified_at, last_verification_position: e.globalPosition });
        break;
      }
      case PRIVACY_SUBJECT_ERASED: {
        // An erasure request (domain/privacy/erasure.ts): no template or client metadata stays in the
        // documents; `changed_position` moves so every process's gallery cache drops them on its next sync.
        const d = e.data as PrivacySubjectErased['data'];
        for (const doc of await col.find({ tenant_id: d.tenant_id, subject_id: d.subject_id })) {
          const { field_b64: _field, ...rest } = doc;
          await col.put(doc.id, { ...rest, minutiae_b64: '', metadata: {}, is_active: false, deleted_at: doc.deleted_at ?? d.erased_at, changed_position: e.globalPosition });
        }
        break;
      }
      default:
        break;
    }
  }
}

/** Listed by the fingerprint manifest (`apps/capabilities/fingerprint.ts`). */
export const fingerprintTemplatesProjection: Projection = {
  name: 'fingerprint-templates',
  collections: [TEMPLATES_COLLECTION],
  eventTypes: [...FINGERPRINT_EVENT_TYPES, PRIVACY_SUBJECT_ERASED],
  apply,
};
