/**
 * The spec's landmark set (Landmarks result: `left_eye`, `right_eye`, `nose_tip`, `mouth_left`,
 * `mouth_right`, `chin` each `{x,y}`, `left_eyebrow` an array of `{x,y}`), built from the iBUG 300-W
 * 68-point annotation (Sagonas et al. 2013; indices 0-based: jaw 0-16, right brow 17-21, left brow
 * 22-26, nose 27-35, eyes 36-41 / 42-47, mouth 48-67) or from the 5-point set.
 *
 * "Left" is the subject's left, as in dlib/face-api naming: the subject's left eye appears on the
 * image's right (points 42-47), the left eyebrow is points 22-26, `mouth_left` is point 54.
 * All points are in original-image pixels (after EXIF orientation), rounded and clamped to the image.
 */
export interface XY { x: number; y: number }

/** The landmarks object of the spec. */
export interface LandmarkSet {
  left_eye: XY; right_eye: XY; nose_tip: XY; mouth_left: XY; mouth_right: XY; chin: XY;
  left_eyebrow: XY[];
}

/** Rounds and clamps a point into [0, width-1] x [0, height-1]. */
export function clampPoint(p: XY, width: number, height: number): XY {
  return {
    x: Math.min(width - 1, Math.max(0, Math.round(p.x))),
    y: Math.min(height - 1, Math.max(0, Math.round(p.y))),
  };
}

function centre(points: XY[]): XY {
  const s = points.reduce((a, p) => ({ x: a.x + p.x, y: a.y + p.y }), { x: 0, y: 0 });
  return { x: s.x / points.length, y: s.y / points.length };
}

/** Landmarks from 68 iBUG points (`68_point` model). Throws a RangeError when fewer than 68 are given. */
export function landmarksFrom68(p: XY[], width: number, height: number): LandmarkSet {
  if (p.length < 68) throw new RangeError(`expected 68 points, got ${p.length}`);
  const c = (q: XY) => clampPoint(q, width, height);
  return {
    left_eye: c(centre(p.slice(42, 48))),
    right_eye: c(centre(p.slice(36, 42))),
    nose_tip: c(p[30]!),
    mouth_left: c(p[54]!),
    mouth_right: c(p[48]!),
    chin: c(p[8]!),
    left_eyebrow: p.slice(22, 27).map(c),
  };
}

/**
 * Landmarks from the 5-point set (`5_point` model: image-left eye, image-right eye, nose tip, image-left
 * and image-right mouth corners). The 5-point set has no chin or eyebrow: `chin` is the jaw point and
 * `left_eyebrow` the brow's two ends (inner, outer) of the same detection's 68-point fit, so the
 * response keeps the spec's fields.
 */
export function landmarksFrom5(five: XY[], p68: XY[], width: number, height: number): LandmarkSet {
  if (five.length < 5) throw new RangeError(`expected 5 points, got ${five.length}`);
  const c = (q: XY) => clampPoint(q, width, height);
  return {
    left_eye: c(five[1]!),
    right_eye: c(five[0]!),
    nose_tip: c(five[2]!),
    mouth_left: c(five[4]!),
    mouth_right: c(five[3]!),
    chin: c(p68[8] ?? five[2]!),
    left_eyebrow: p68.length >= 27 ? [c(p68[22]!), c(p68[26]!)] : [],
  };
}
