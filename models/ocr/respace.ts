/**
 * Merging two readings of one line: PaddleOCR's letters (reliable, but PP-OCRv4 drops word spaces and has
 * no accents or Ñ) with Tesseract `spa`'s word boundaries and accented letters. Used by the INE/passport
 * re-read (`pipeline.ts`) and the bill re-read (`bill-reread.ts`).
 */
/**
 * Inserts spaces into Paddle's text (PP-OCRv4 often drops word spaces on Latin text) where Tesseract's
 * reading of the same line has them, aligning the two by edit distance (accents folded), so a few
 * differing characters do not prevent it. Paddle's characters are kept, except that an aligned letter
 * Tesseract reads with an accent or as `Ñ` (absent from the PP-OCRv4 dictionary) takes that form.
 */
export function respace(paddleText: string, tessText: string): string {
  if (/\s/.test(paddleText.trim())) return paddleText;
  const fold = (ch: string) => ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase();
  const p = [...paddleText.replace(/\s+/g, '')];
  const tWords = tessText.trim().split(/\s+/);
  const t: string[] = [];
  const tRaw: string[] = [];
  const spaceAfter = new Set<number>(); // index in t after which a space follows
  for (const w of tWords) {
    for (const ch of w) {
      t.push(fold(ch));
      tRaw.push(ch.toUpperCase());
    }
    spaceAfter.add(t.length - 1);
  }
  spaceAfter.delete(t.length - 1);
  const n = p.length;
  const m = t.length;
  const dp: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (fold(p[i - 1]!) === t[j - 1] ? 0 : 1));
    }
  }
  if (dp[n]![m]! > Math.max(2, Math.floor(n / 5))) return paddleText;
  // Backtrack: map each tesseract index to the paddle index it aligned with.
  const breaks = new Set<number>();
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const diag = dp[i - 1]![j - 1]! + (fold(p[i - 1]!) === t[j - 1] ? 0 : 1);
    if (dp[i]![j] === diag) {
      if (spaceAfter.has(j - 1)) breaks.add(i - 1);
      if (fold(p[i - 1]!) === t[j - 1] && /[ÁÉÍÓÚÜÑ]/.test(tRaw[j - 1]!)) p[i - 1] = tRaw[j - 1]!;
      i--;
      j--;
    } else if (dp[i]![j] === dp[i - 1]![j]! + 1) i--;
    else {
      if (spaceAfter.has(j - 1) && i > 0) breaks.add(i - 1);
      j--;
    }
  }
  let out = '';
  p.forEach((ch, k) => {
    out += ch;
    if (breaks.has(k) && k < n - 1) out += ' ';
  });
  return out;
}

