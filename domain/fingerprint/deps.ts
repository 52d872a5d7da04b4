import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { GalleryCache } from './gallery.ts';
import type { FingerprintTemplateEnrolled } from './events.ts';

/** What the fingerprint-matching use cases need (ports only), plus the in-process gallery cache. */
export interface FingerprintDeps {
  events: EventStore;
  readModels: ReadModelStore;
  /** Resolves once every projection applied every event appended so far. */
  catchUp: () => Promise<void>;
  /** Epoch milliseconds. */
  now: () => number;
  /** A new unique template id. */
  newId: () => string;
  /** Per-tenant cylinders of the active templates, kept in step with the read model (gallery.ts). */
  gallery: GalleryCache;
}

/** Read-model collection of the templates (owned by `projections/fingerprint-templates`). */
export const TEMPLATES_COLLECTION = 'fingerprint_templates';

/**
 * A listing document (one per template, kept after deletion with `is_active: false`): the enrollment
 * event's data (`template_id` as `id`) plus what deletions and verifications change.
 */
export type TemplateDoc = { [key: string]: unknown } & Omit<FingerprintTemplateEnrolled['data'], 'template_id'> & {
  id: string;
  is_active: boolean;
  deleted_at: string | null;
  verification_count: number;
  last_verified_at: string | null;
  enrolled_position: number;
  /** Global position of the last enrollment or deletion applied (the gallery cache syncs on it). */
  changed_position: number;
  last_verification_position: number;
};

export const TEMPLATE_INDEXES = ['tenant_id', ['tenant_id', 'subject_id'], ['tenant_id', 'is_active'], ['tenant_id', 'changed_position']] as const;
