/**
 * Fingerprint domain and decoding without the server: ISO/IEC 19794-2 import/export, BMP decoding,
 * the matcher on the SourceAFIS samples and on FVC2002 ISO templates, and the error-rate metrics.
 * Tests on ../shared/data skip with a printed reason where it is absent.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { parseIsoTemplate, toIsoTemplate } from '../../../domain/fingerprint/iso.ts';
import { FingerprintError } from '../../../domain/fingerprint/errors.ts';
import { errorRates } from '../../../domain/fingerprint/metrics.ts';
import { buildCylinders, matchCylinders } from '../../../domain/fingerprint/mcc.ts';
import { extractMinutiae } from '../../../domain/fingerprint/extract.ts';
import { decodeMinutiae, encodeMinutiae, type Minutia } from '../../../domain/fingerprint/template.ts';
import { calibratedScore } from '../../../domain/fingerprint/score.ts';
import { decodeBmp, decodeFingerprint } from '../../../models/fingerprint/image.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fpDir = path.resolve(repoRoot, '../shared/data/fingerprint');
const haveData = existsSync(path.join(fpDir, 'fvc2002/pairs.csv'));
if (!haveData) console.warn(`fingerprint data tests skipped: ${fpDir} is absent`);

const sampleMinutiae: Minutia[] = [
  { x: 10, y: 20, angle: 0.5, type: 'ending', quality: 80 },
  { x: 300, y: 120, angle: 6.0, type: 'bifurcation', quality: 40 },
  { x: 150, y: 399, angle: 3.1, type: 'other', quality: 0 },
];

describe('templates and ISO/IEC 19794-2', () => {
  it('round-trips minutiae through the event encoding and an ISO record (angle to 360/256 degrees)', () => {
    const back = decodeMinutiae(encodeMinutiae(sampleMinutiae));
    const iso = parseIsoTemplate(toIsoTemplate({ width: 400, height: 500, minutiae: sampleMinutiae, quality: 77 }, 3));
    expect(iso.fingerPosition).toBe(3);
    expect(iso.template.quality).toBe(77);
    for (const list of [back, iso.template.minutiae]) {
      list.forEach((m, i) => {
        const o = sampleMinutiae[i]!;
        expect([m.x, m.y, m.type]).toEqual([o.x, o.y, o.type]);
        expect(Math.abs(Math.atan2(Math.sin(m.angle - o.angle), Math.cos(m.angle - o.angle)))).toBeLessThan(0.0125);
      });
    }
  });

  it('refuses records that are truncated, mislabelled or inconsistent', () => {
    const good = toIsoTemplate({ width: 400, height: 500, minutiae: sampleMinutiae, quality: 50 }, 1);
    const cases: Uint8Array[] = [good.subarray(0, 10), good.subarray(0, good.length - 1), Uint8Array.from([...good, 1])];
    const wrongMagic = Uint8Array.from(good); wrongMagic[0] = 0x47; cases.push(wrongMagic);
    const tooMany = Uint8Array.from(good); tooMany[27] = 200; cases.push(tooMany);
    for (const c of cases) {
      expect(() => parseIsoTemplate(c)).toThrow(FingerprintError);
      try { parseIsoTemplate(c); } catch (e) { expect((e as FingerprintError).code).toBe('invalid_template'); }
    }
  });

  it.skipIf(!haveData)('refuses the truncated ISO templates and accepts every FVC2002 one', () => {
    const dir = path.join(fpDir, 'invalid-iso-templates/fvc2004/DB_1B');
    for (const f of readdirSync(dir)) expect(() => parseIsoTemplate(new Uint8Array(readFileSync(path.join(dir, f)))), f).toThrow(/Not a valid ISO/);
    let n = 0;
    for (const db of ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B']) {
      for (const f of readdirSync(path.join(fpDir, 'fvc2002', db)).filter((x) => x.endsWith('.iso'))) {
        const r = parseIsoTemplate(new Uint8Array(readFileSync(path.join(fpDir, 'fvc2002', db, f))));
        expect(r.template.minutiae.length).toBeGreaterThan(5);
        n++;
      }
    }
    expect(n).toBe(320);
  });

  it.skipIf(!haveData)('an FVC2002 ISO template matches our extraction of its own image best', async () => {
    const root = path.join(fpDir, 'fvc2002/DB1_B');
    const ours = await Promise.all(['101_1', '102_1', '103_1'].map(async (n) => buildCylinders(extractMinutiae(await decodeFingerprint(new Uint8Array(readFileSync(path.join(root, `${n}.tif`))))).template)));
    const iso = buildCylinders(parseIsoTemplate(new Uint8Array(readFileSync(path.join(root, '101_1.iso')))).template);
    const scores = ours.map((o) => matchCylinders(iso, o));
    expect(scores[0]).toBeGreaterThan(Math.max(scores[1]!, scores[2]!));
  });

  it.skipIf(!haveData)('our minutiae agree with the FVC2002 ISO templates in place and direction, bifurcations included', async () => {
    // The ISO minutiae are in the frame of the image stretched to the header's 300×400 (docs/fingerprint.md),
    // mapped back here; pairs one-to-one, nearest first, within 12 px (as scripts/fingerprint-diagnose.ts).
    const root = path.join(fpDir, 'fvc2002/DB1_B');
    let iso = 0, paired = 0;
    const agree: Record<'ending' | 'bifurcation', [within: number, all: number]> = { ending: [0, 0], bifurcation: [0, 0] };
    for (const n of ['101_1', '103_2', '105_3', '107_4', '109_5']) {
      const img = await decodeFingerprint(new Uint8Array(readFileSync(path.join(root, `${n}.tif`))));
      const ours = extractMinutiae(img).template.minutiae;
      const rec = parseIsoTemplate(new Uint8Array(readFileSync(path.join(root, `${n}.iso`)))).template;
      const sx = img.width / rec.width, sy = img.height / rec.height;
      const ref = rec.minutiae.map((m) => ({ ...m, x: m.x * sx, y: m.y * sy, angle: Math.atan2(Math.sin(m.angle) * sy, Math.cos(m.angle) * sx) }));
      const pairs = ours.flatMap((o, a) => ref.map((r, b) => [Math.hypot(o.x - r.x, o.y - r.y), a, b] as const)).filter((p) => p[0] <= 12).sort((p, q) => p[0] - q[0]);
      const usedA = new Set<number>(), usedB = new Set<number>();
      for (const [, a, b] of pairs) {
        if (usedA.has(a) || usedB.has(b)) continue;
        usedA.add(a); usedB.add(b); paired++;
        const o = ours[a]!, r = ref[b]!;
        if (o.type !== r.type || o.type === 'other') continue;
        const t = agree[o.type];
        t[1]++;
        if (Math.abs(Math.atan2(Math.sin(o.angle - r.angle), Math.cos(o.angle - r.angle))) < Math.PI / 6) t[0]++;
      }
      iso += ref.length;
    }
    // Measured: recall 0.86 and about 95% of both types within 30° on DB1_B (bifurcations were 27%
    // before their sense was taken from the binarised image, recall 0.75 before the 8-minimal skeleton).
    expect(paired / iso).toBeGreaterThan(0.78);
    expect(agree.ending[0] / agree.ending[1]).toBeGreaterThan(0.85);
    expect(agree.bifurcation[0] / agree.bifurcation[1]).toBeGreaterThan(0.85);
  });
});

describe.skipIf(!haveData)('decoding and matching the SourceAFIS samples', () => {
  const sample = (n: string) => new Uint8Array(readFileSync(path.join(fpDir, 'sourceafis-samples', n)));
  it('decodes the BMP probe to the same pixels as the PNG probe', async () => {
    const bmp = decodeBmp(sample('probe.bmp'));
    const png = await sharp(sample('probe.png')).flatten({ background: '#ffffff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect([bmp.width, bmp.height]).toEqual([png.info.width, png.info.height]);
    let diff = 0;
    for (let i = 0; i < bmp.data.length; i++) diff += Math.abs(bmp.data[i]! - png.data[i * png.info.channels]!);
    expect(diff / bmp.data.length).toBeLessThan(1);
  });

  it('the probe matches "matching" and not "nonmatching" in PNG, BMP and JPEG', async () => {
    const cyl = async (n: string) => buildCylinders(extractMinutiae(await decodeFingerprint(sample(n))).template);
    const matching = await cyl('matching.png');
    const nonmatching = await cyl('nonmatching.png');
    for (const probe of ['probe.png', 'probe.bmp', 'probe.jpeg']) {
      const p = await cyl(probe);
      const good = calibratedScore(matchCylinders(p, matching));
      const bad = calibratedScore(matchCylinders(p, nonmatching));
      expect(good, probe).toBeGreaterThan(60);
      expect(bad, probe).toBeLessThan(40);
    }
  });

  it('reads the ISO samples (records zero-padded to 384 bytes) and they behave as labelled', async () => {
    const iso = (n: string) => buildCylinders(parseIsoTemplate(sample(n)).template);
    const probe = iso('iso-probe.dat');
    const good = calibratedScore(matchCylinders(probe, iso('iso-matching.dat')));
    const bad = calibratedScore(matchCylinders(probe, iso('iso-nonmatching.dat')));
    // These records describe a 224 × 288 px print at 197 px/cm, not the 388 × 374 PNG samples, so they are
    // compared with each other only (iso-probe.dat and iso-matching.dat are the same bytes).
    console.log(`SourceAFIS ISO samples: probe vs matching ${good}, vs nonmatching ${bad}`);
    expect(good).toBeGreaterThan(60);
    expect(bad).toBeLessThan(40);
    // Padding must be zeros: a non-zero byte after the record is refused.
    const dirty = sample('iso-probe.dat').slice();
    dirty[dirty.length - 1] = 7;
    expect(() => parseIsoTemplate(dirty)).toThrow(/record length field says 263 bytes, the file has 384/);
  });

  it('refuses a truncated BMP', () => {
    expect(() => decodeBmp(sample('probe.bmp').subarray(0, 5000))).toThrow(/truncated/);
  });
});

describe('error rates', () => {
  it('computes EER, FMR100 and ZeroFMR as the FVC protocol defines them', () => {
    const genuine = [0.9, 0.8, 0.7, 0.2];
    const impostor = [0.1, 0.15, 0.3, 0.05];
    const r = errorRates(genuine, impostor);
    expect(r.eer).toBeCloseTo(0.25, 5);
    expect(r.zeroFmr).toBeCloseTo(0.25, 5); // threshold above 0.3 rejects the 0.2 genuine
    expect(errorRates([1, 1], [0, 0]).eer).toBe(0);
  });
});
