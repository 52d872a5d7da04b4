/**
 * The OCR pipeline's settings (`models/ocr/settings.ts`) come from the validated configuration through
 * `configure` (`models/ocr/jobs.ts`), never from `process.env`; and the pipeline's modules form no import
 * cycle (issue 12).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../apps/api/config.ts';
import { configure } from '../../models/ocr/jobs.ts';
import { DEFAULT_OCR_SETTINGS, ocrSettings, setOcrSettings, settingsFromConfig } from '../../models/ocr/settings.ts';

const modelsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../models/ocr');

describe('OCR settings', () => {
  afterEach(() => setOcrSettings(DEFAULT_OCR_SETTINGS));

  it('the default configuration selects the default settings', () => {
    setOcrSettings({ detMaxSide: 640, spanishReread: false });
    configure(loadConfig({}));
    expect(ocrSettings()).toEqual(DEFAULT_OCR_SETTINGS);
    // A configuration object built by hand without the OCR keys keeps the defaults.
    expect(settingsFromConfig({ OCR_DET_MAX_SIDE: 1280 })).toEqual({ ...DEFAULT_OCR_SETTINGS, detMaxSide: 1280 });
  });

  it('each OCR variable of the configuration reaches its setting', () => {
    configure(loadConfig({ OCR_ONNX_THREADS: '2', OCR_DET_THREADS: '2', OCR_REC_THREADS: '1', OCR_TESSERACT_WORKERS: '3', OCR_DET_MAX_SIDE: '1280', OCR_MRZ_DET_MAX_SIDE: '800', OCR_SPANISH_REREAD: '0', OCR_MRZ_DECODER: 'greedy', OCR_MRZ_ROW_SCALES: '1, 1.3' }));
    expect(ocrSettings()).toEqual({ onnxThreads: 2, detThreads: 2, recThreads: 1, tesseractWorkers: 3, detMaxSide: 1280, mrzDetMaxSide: 800, spanishReread: false, mrzDecoder: 'greedy', mrzRowScales: [1, 1.3], recBatch: DEFAULT_OCR_SETTINGS.recBatch, fusedModels: DEFAULT_OCR_SETTINGS.fusedModels });
  });

  it('rejects invalid values, in the configuration and in the settings', () => {
    expect(() => loadConfig({ OCR_MRZ_ROW_SCALES: '1,x' })).toThrow(/OCR_MRZ_ROW_SCALES/);
    expect(() => loadConfig({ OCR_MRZ_DECODER: 'beam' })).toThrow(/OCR_MRZ_DECODER/);
    expect(() => setOcrSettings({ onnxThreads: 0 })).toThrow(RangeError);
    expect(() => setOcrSettings({ recThreads: 0 })).toThrow(RangeError);
    expect(() => setOcrSettings({ tesseractWorkers: 1.5 })).toThrow(RangeError);
    expect(() => loadConfig({ OCR_REC_THREADS: '0' })).toThrow(/OCR_REC_THREADS/);
    expect(() => setOcrSettings({ mrzRowScales: [] })).toThrow(RangeError);
    expect(ocrSettings()).toEqual(DEFAULT_OCR_SETTINGS);
  });
});

describe('models/ocr structure', () => {
  const files = readdirSync(modelsDir).filter((f) => f.endsWith('.ts'));
  const source = (f: string) => readFileSync(path.join(modelsDir, f), 'utf8');

  it('reads no environment variable', () => {
    expect(files.filter((f) => /process\.env/.test(source(f)))).toEqual([]);
  });

  it('has no import cycle among its modules (type-only imports included)', () => {
    const edges = new Map(files.map((f) => [f, [...source(f).matchAll(/(?:import|export)[^;]*?from\s+['"]\.\/([^'"]+)['"]/g)].map((m) => m[1]!)]));
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (f: string, stack: string[]) => {
      if (stack.includes(f)) return void cycles.push([...stack.slice(stack.indexOf(f)), f].join(' -> '));
      if (done.has(f)) return;
      for (const g of edges.get(f) ?? []) visit(g, [...stack, f]);
      done.add(f);
    };
    for (const f of files) visit(f, []);
    expect(edges.get('pipeline.ts')).toContain('bill-reread.ts'); // the scan sees imports at all
    expect(cycles).toEqual([]);
  });
});
