/** Erasure requests (`/v1/privacy/erasures`, docs/privacy.md): crypto-shredding of a data subject. */
import { randomUUID } from 'node:crypto';
import type { ErasureDeps } from '../../domain/privacy/erasure.ts';
import { SealingEventStore } from '../../infra/privacy/sealing-event-store.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/**
 * Use cases: `eraseSubject`, `getErasure` (`domain/privacy/erasure.ts`). The subject's key is destroyed
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
    now: () => platform.clock.now(),
    newId: () => `era_${randomUUID().replace(/-/g, '')}`,
  }),
  routes: async () => (await import('../api/routes/privacy/erasures.ts')).registerPrivacyRoutes,
};
