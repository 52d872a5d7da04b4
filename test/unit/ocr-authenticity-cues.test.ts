/**
 * The image cues of the authenticity score (`models/ocr/forensics.ts`, `models/ocr/portrait.ts`) on
 * generated INE fronts: a genuine phone photo passes each cue, the attack the cue is for fails it
 * (`test/generators/attacks.ts`). Regions come from the generator's ground truth (card corners and
 * portrait box), so no OCR runs here. Measured rates over 100 cards: docs/ocr.md, "Authenticity".
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { CUE_THRESHOLDS } from '../../models/ocr/authenticity.ts';
import { haslerColourfulness, jpegGhost, screenMoire } from '../../models/ocr/forensics.ts';
import { portraitFaceScore } from '../../models/ocr/portrait.ts';
import { warpQuad, type Quad, type RgbImage } from '../../models/ocr/raster.ts';
import { attackedIneFront, type AttackedFront } from '../generators/attacks.ts';
import { homography } from '../generators/degrade.ts';
import { INE_CARD_SIZE } from '../generators/ine.ts';

const SEED = 'authn-tune';

async function decode(a: AttackedFront): Promise<RgbImage> {
  const { data, info } = await sharp(a.image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Maps card pixels to image pixels through the card corners. */
function cardToImage(a: AttackedFront): (x: number, y: number) => [number, number] {
  const [w, h] = INE_CARD_SIZE;
  const H = homography([[0, 0], [w, 0], [w, h], [0, h]], a.corners);
  return (x, y) => {
    const d = H[6] * x + H[7] * y + H[8];
    return [(H[0] * x + H[1] * y + H[2]) / d, (H[3] * x + H[4] * y + H[5]) / d];
  };
}

/** Upright crop of a card-pixel box (grown by `grow` of its size on every side). */
function cardCrop(img: RgbImage, a: AttackedFront, box: readonly [number, number, number, number], grow = 0): RgbImage {
  const [x, y, w, h] = box;
  const m = cardToImage(a);
  const q = [m(x - grow * w, y - grow * h), m(x + w * (1 + grow), y - grow * h), m(x + w * (1 + grow), y + h * (1 + grow)), m(x - grow * w, y + h * (1 + grow))] as Quad;
  return warpQuad(img, q, Math.round(w * (1 + 2 * grow)), Math.round(h * (1 + 2 * grow)));
}

const wholeCard = [0, 0, INE_CARD_SIZE[0], INE_CARD_SIZE[1]] as const;

describe('authenticity cues on generated INE fronts', () => {
  it('not_photocopy: a colour-printed card keeps its colour spread, a black-and-white copy loses it', async () => {
    for (const index of [0, 1]) {
      const genuine = await attackedIneFront(SEED, index, 'genuine');
      const copy = await attackedIneFront(SEED, index, 'photocopy');
      const g = cardCrop(await decode(genuine), genuine, wholeCard);
      const c = cardCrop(await decode(copy), copy, wholeCard);
      expect(haslerColourfulness(g, { x: 0, y: 0, w: g.width, h: g.height }).spread).toBeGreaterThanOrEqual(CUE_THRESHOLDS.colourSpread);
      expect(haslerColourfulness(c, { x: 0, y: 0, w: c.width, h: c.height }).spread).toBeLessThan(CUE_THRESHOLDS.colourSpread);
    }
  });

  it('no_local_recompression: a pasted portrait shows no JPEG ghost where the rest of the photo does', async () => {
    for (const index of [0, 1]) {
      const genuine = await jpegGhost(await decode(await attackedIneFront(SEED, index, 'genuine')));
      const edited = await jpegGhost(await decode(await attackedIneFront(SEED, index, 'edit')));
      expect(genuine.outliers).toBeLessThanOrEqual(CUE_THRESHOLDS.ghostOutliers);
      expect(edited.outliers).toBeGreaterThan(CUE_THRESHOLDS.ghostOutliers);
      expect(edited.ghostQuality).toBe(40); // the genuine photo's JPEG quality
    }
  });

  it('not_screen_capture: a photo of a screen with a visible moiré peaks in the spectrum, the card photo does not', async () => {
    // Card 5 of this seed is a capture whose sensor samples the sub-pixel grid near its alias band
    // (strong moiré); the cue misses faint moirés (measured rate in docs/ocr.md).
    const genuine = await attackedIneFront(SEED, 5, 'genuine');
    const screen = await attackedIneFront(SEED, 5, 'screen');
    expect(screenMoire(await decode(genuine), genuine.corners).peak).toBeLessThanOrEqual(CUE_THRESHOLDS.spectralPeak);
    expect(screenMoire(await decode(screen), screen.corners).peak).toBeGreaterThan(CUE_THRESHOLDS.spectralPeak);
  });

  it('face_in_photo_area: the face detector finds the portrait, and nothing in a blanked portrait area', async () => {
    for (const index of [0, 1]) {
      const genuine = await attackedIneFront(SEED, index, 'genuine');
      const blank = await attackedIneFront(SEED, index, 'no_face');
      const g = await portraitFaceScore(cardCrop(await decode(genuine), genuine, genuine.photoBox, 0.15));
      const b = await portraitFaceScore(cardCrop(await decode(blank), blank, blank.photoBox, 0.15));
      expect(g.score).toBeGreaterThanOrEqual(CUE_THRESHOLDS.faceScore);
      expect(b.score).toBeLessThan(CUE_THRESHOLDS.faceScore);
    }
  });
});
