/**
 * WCAG 2.x contrast (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio, relative luminance per
 * https://www.w3.org/TR/WCAG22/#dfn-relative-luminance) and the adjustment Sello applies to a brand
 * colour that fails level AA.
 *
 * Where the colour is used: as the background of buttons and the page header, under white text
 * (#FFFFFF), and as the colour of links on a white page. Both pairs are the same two colours, so one
 * check covers them. Level AA for normal text (success criterion 1.4.3) needs a ratio of at least 4.5:1.
 */
export const AA_NORMAL_TEXT = 4.5;
/** The text colour drawn on top of the brand colour. */
export const TEXT_ON_BRAND = '#FFFFFF';

function channels(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** Relative luminance (0 black .. 1 white) of `#RRGGBB`. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio (1..21) of two `#RRGGBB` colours. */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  const [hi, lo] = la > lb ? [la, lb] : [lb, la];
  return (hi + 0.05) / (lo + 0.05);
}

const toHex = (rgb: readonly number[]) => '#' + rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('').toUpperCase();

/** Outcome of the contrast check of a brand colour (stored on the deployment record as `branding.contrast`). */
export interface ContrastCheck {
  /** The colour requested (`config.primaryColor`, normalised). */
  requested: string;
  /** The colour used on pages and e-mails: `requested` when it passes, else the adjusted one. */
  effective: string;
  /** The text colour drawn on it. */
  text: string;
  /** Ratio of `requested` against `text`, 2 decimals. */
  requested_ratio: number;
  /** Ratio of `effective` against `text`, 2 decimals (>= 4.5). */
  effective_ratio: number;
  /** True when `effective` differs from `requested`. */
  adjusted: boolean;
  /** How the colour was adjusted (null when it was not). */
  method: string | null;
}

/**
 * Checks `color` (`#RRGGBB`) against white text at AA (4.5:1). A colour that fails is darkened by
 * scaling its three sRGB channels by the same factor k (0 < k < 1: same hue and saturation, lower
 * lightness), with k the largest value, found by bisection to 1/1000, whose ratio reaches 4.5.
 * Darkening always succeeds (black gives 21:1), so the result passes.
 */
export function checkBrandColor(color: string): ContrastCheck {
  const requestedRatio = contrastRatio(color, TEXT_ON_BRAND);
  const round = (x: number) => Math.floor(x * 100) / 100;
  if (requestedRatio >= AA_NORMAL_TEXT) {
    return { requested: color, effective: color, text: TEXT_ON_BRAND, requested_ratio: round(requestedRatio), effective_ratio: round(requestedRatio), adjusted: false, method: null };
  }
  const rgb = channels(color);
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 12; i++) {
    const k = (lo + hi) / 2;
    if (contrastRatio(toHex(rgb.map((c) => c * k)), TEXT_ON_BRAND) >= AA_NORMAL_TEXT) lo = k;
    else hi = k;
  }
  // Rounding to whole channel values can lose a hair of contrast: step down until it passes.
  let k = lo;
  let effective = toHex(rgb.map((c) => c * k));
  while (contrastRatio(effective, TEXT_ON_BRAND) < AA_NORMAL_TEXT && k > 0) {
    k = Math.max(0, k - 0.005);
    effective = toHex(rgb.map((c) => c * k));
  }
  return {
    requested: color,
    effective,
    text: TEXT_ON_BRAND,
    requested_ratio: round(requestedRatio),
    effective_ratio: round(contrastRatio(effective, TEXT_ON_BRAND)),
    adjusted: true,
    method: `darkened: sRGB channels scaled by ${k.toFixed(3)} (same hue) to reach WCAG AA 4.5:1 against white text`,
  };
}
