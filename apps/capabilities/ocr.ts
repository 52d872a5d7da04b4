/** OCR of INE voter cards, passports and utility bills (`/v1/ocr/*`, docs/ocr.md). */
import { defineJobs, runJob } from '../../infra/ports/job-queue.ts';
import { extractIne, type ExtractIneInput, type IneExtraction } from '../../domain/ocr/extract-ine.ts';
import type { handlers } from '../../models/ocr/jobs.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** The OCR jobs; input and output types come from the handlers in `models/ocr/jobs.ts`. */
export const ocrJobs = defineJobs<typeof handlers>({
  'ocr.extractId': true,
  'ocr.extractDocument': true,
  'ocr.authenticity': true,
  'ocr.readPage': true,
});

/** What the OCR routes call beyond single jobs. */
export interface OcrUseCases {
  /** The one INE front+back orchestration (`domain/ocr/extract-ine.ts`) on the platform's job queue. */
  extractIne(input: ExtractIneInput): Promise<IneExtraction>;
}

export const ocrCapability: CapabilityManifest<OcrUseCases> = {
  name: 'ocr',
  summary: 'Reads INE cards (front and back), passports (MRZ) and electricity, phone and cable bills; checks authenticity.',
  jobs: { definitions: ocrJobs, load: () => import('../../models/ocr/jobs.ts') },
  useCases: (platform) => ({
    extractIne: (input) => extractIne((type, job) => runJob(platform.jobs, ocrJobs[type], job), input),
  }),
  routes: async () => (await import('../api/routes/ocr/index.ts')).registerOcrRoutes,
};
