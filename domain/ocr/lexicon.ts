/**
 * Written forms of Spanish proper names on Mexican documents (accents, Ñ), and the state abbreviations
 * printed on the INE address line.
 *
 * The PP-OCRv4 recogniser has no accented vowels or Ñ; Tesseract `spa` reads them but sometimes puts an
 * accent on the wrong vowel of a degraded word. Spanish orthography (RAE, "Ortografía de la lengua
 * española" 2010, §3.4 on proper names) fixes where the accent of these words goes. The list is used to
 * choose among what a recogniser read (the place of an accent it saw), never to add a letter it did not
 * read: a document may print `MARIA` without the accent (the ICAO specimen passport, many INE cards), and
 * an identity service writes what is printed (issue 18). It is also the word list of the segmentation of
 * glued words (`segment.ts`). The list covers frequent Mexican given names, surnames (INEGI/RENAPO
 * frequency lists) and place names of INE addresses.
 */
const WORDS = `
ÁLVAREZ ÁLVARO ÁNGEL ÁNGELES ÁVALOS ÁVILA ÁGUILAS ÁLAMOS ÁNGELA ADÁN AGUSTÍN ALARCÓN ALCÁNTARA ANAHÍ ANÁHUAC ANDRÉS ANTÓN
ARÉVALO ARIÁN ASUNCIÓN BALTAZAR BELÉN BELTRÁN BENÍTEZ BERNABÉ BRISEÑO CALDERÓN CAÑAS CÁRDENAS CASTAÑEDA CASTAÑÓN CÉSAR CHÁVEZ
CONCEPCIÓN CONSTITUCIÓN CORTÉS CRISTÓBAL CUAUHTÉMOC DAMIÁN DÍAZ DOMÍNGUEZ EFRAÍN ELÍAS ESPAÑA ESTEFANÍA EUGENIA EVOLUCIÓN FABIÁN
FÉLIX FERNÁNDEZ GALVÁN GARCÍA GASTÓN GERMÁN GINERÉS GÓMEZ GONZÁLEZ GUTIÉRREZ GUZMÁN HÉCTOR HERNÁNDEZ IBÁÑEZ IÑAKI IÑIGUEZ IÑÍGUEZ
ISAÍAS ITZIMNÁ IVÁN JAZMÍN JESÚS JIMÉNEZ JOAQUÍN JOSÉ JUÁREZ JULIÁN LÁZARO LEÓN LOYOLA LUCÍA LÓPEZ MACÍAS MALDONADO MARCIAL
MARÍA MARTÍN MARTÍNEZ MÁRQUEZ MATÍAS MÉNDEZ MÉRIDA MÉXICO MICHOACÁN MOISÉS MONSERRAT MÓNICA MUÑOZ NAYARIT NEZAHUALCÓYOTL NICOLÁS NOEMÍ
NÚÑEZ OAXACA ORDÓÑEZ ÓSCAR PATIÑO PEÑA PEÑALOZA PEÑÓN PÉREZ PONCE QUERÉTARO QUIÑONES QUIÑÓNEZ RAMÍREZ RAMÓN RAÚL REBECA RENÉ
RODRÍGUEZ ROMÁN RUIZ SAÚL SEBASTIÁN SÁENZ SÁNCHEZ SANTIBÁÑEZ SERAFÍN SIMÓN SOFÍA SUÁREZ TÉLLEZ TOMÁS TRISTÁN TZINTZÚN
ULISES URIÓSTEGUI VALDÉS VALERIA VÁZQUEZ VELÁZQUEZ VERÓNICA VILLASEÑOR YÁÑEZ YAÑEZ ZÚÑIGA ACUÑA ARÁMBULA ÁRCEGA BAÑUELOS BRISEÑO
CAMPOS CARREÑO CASTAÑÓN CEPEDA CRUZ DUEÑAS ESPAÑOL ESTÉVEZ FERNÁNDEZ FUENTES GALINDO GAYTÁN GUERRERO HERNÁN INÉS IRENE LEÓN
LIZÁRRAGA MAGAÑA MANZANO MEDINA MONTAÑO MONTAÑEZ MUÑIZ NIÑO NOÉ OCAÑA OLMEDO PADRÓN PATRÓN PEÑAFIEL RANGEL REYES RÍOS
RIVERA ROSALÍA SALDAÑA SANTAMARÍA SERNA SOLÍS TOLUCA TREVIÑO URIBE VALENZUELA VELÁSQUEZ ZAMORA ZAPOPAN ZAVALA ZÁRATE
ALEJANDRÍA ANÁHUAC ARAGÓN BENITO CHAPULTEPEC COYOACÁN CUAJIMALPA CULIACÁN GÓMEZ HIDALGO IZTAPALAPA JALAPA LEÓN MAZATLÁN MONTERREY
NAUCALPAN PACHUCA POTOSÍ SAN TLÁHUAC TLALNEPANTLA TORREÓN TULANCINGO URUAPAN ÁLVARO OBREGÓN CANCÚN HERMOSILLO MEXICALI TIJUANA
ALAMEDA AMÉRICAS ANTEQUERA ATLÁNTIDA BOSQUES CONDESA DEL FÁTIMA GUADALUPE JARDÍN JARDINES LAGUNA LOMAS MORAL NÁPOLES NARVARTE
POLANCO PROGRESO REFORMA ROMA SANTA SATÉLITE TLAPALTITLÁN UNIÓN VALLE MEYEHUALCO JALATLACO MAGISTERIO FERROCARRIL ESTACIÓN
ADRIÁN BÁRBARA ROCÍO RUBÉN EFRÉN ÉDGAR MÁXIMO ANAÍS ÉRIKA CRISTIÁN LADRÓN
INSURGENTES HÉROES NIÑOS ÚRSULA BOLÍVAR PÁTZCUARO YUCATÁN CAÑADA MONTAÑA TLÁHUAC OBREGÓN JUÁREZ ZARAGOZA MORELOS ALLENDE GUERRERO MADERO ÁLAMO OLÍMPICA REVOLUCIÓN INDEPENDENCIA CONSTITUYENTES PRÍNCIPE
`;

/** Folded form (no accents, Ñ -> N) -> written form, for the listed words that carry an accent or Ñ. */
const RESTORE: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>();
  for (const w of WORDS.split(/\s+/)) {
    if (!w || !/[ÁÉÍÓÚÜÑ]/.test(w)) continue;
    const folded = w.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    if (!m.has(folded)) m.set(folded, w);
  }
  return m;
})();

/** Every listed word, folded (no accents, `Ñ` -> `N`): the vocabulary of the word segmentation (`segment.ts`). */
export function lexiconWords(): string[] {
  return [...KNOWN];
}

/** Folded forms (no accents, Ñ -> N) of every listed word. */
const KNOWN: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean).map((w) => w.normalize('NFD').replace(/[\u0300-\u036f]/g, '')));

/** True when the word (upper case, accents and Ñ folded or not) is one of the listed names/places. */
export function isLexiconWord(word: string): boolean {
  return KNOWN.has(word.toUpperCase().normalize('NFD').replace(/[\u0300-\u036f]/g, ''));
}

const fold = (w: string) => w.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
const marks = (w: string) => (w.normalize('NFD').match(/[\u0300-\u036f]/g) ?? []).length;

/**
 * The written spelling of an upper-case name or address line, from what the recogniser read: a listed word
 * read with as many accent marks as its written form, on other vowels (`MARÍÁ`, `GÁRCIA`), gets them where
 * the written form has them; every other word is kept exactly as read. Never adds an accent or an `Ñ` the
 * recogniser did not read (`MARIA` stays `MARIA`: a document may print it so), never removes one.
 */
export function restoreDiacritics(text: string): string {
  return text.replace(/[A-ZÁÉÍÓÚÜÑ]+/g, (w) => {
    if (!/[ÁÉÍÓÚÜ]/.test(w)) return w;
    const written = RESTORE.get(fold(w));
    if (!written || written === w || marks(written) !== marks(w)) return w;
    return written.includes('Ñ') === w.includes('Ñ') ? written : w;
  });
}

/** State abbreviations printed at the end of the INE address (`CUAUHTÉMOC, CDMX.`). */
export const STATE_ABBREVIATIONS = [
  'AGS', 'BC', 'BCS', 'CAMP', 'COAH', 'COL', 'CHIS', 'CHIH', 'CDMX', 'DF', 'DGO', 'GTO', 'GRO', 'HGO', 'JAL', 'MEX', 'MICH', 'MOR', 'NAY', 'NL',
  'OAX', 'PUE', 'QRO', 'QROO', 'SLP', 'SIN', 'SON', 'TAB', 'TAMPS', 'TLAX', 'VER', 'YUC', 'ZAC',
] as const;

/** Snaps an OCR'd state abbreviation to the closest listed one (one character off, same length); else returns it unchanged. */
export function snapStateAbbreviation(s: string): string {
  const t = s.toUpperCase().replace(/[^A-Z]/g, '');
  if ((STATE_ABBREVIATIONS as readonly string[]).includes(t)) return t;
  const close = STATE_ABBREVIATIONS.filter((a) => a.length === t.length && [...a].filter((ch, i) => ch !== t[i]).length === 1);
  return close.length === 1 ? close[0]! : s;
}
