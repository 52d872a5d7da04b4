/**
 * Word segmentation of glued OCR text in Mexican names and addresses.
 *
 * PP-OCRv4 often drops the word spaces of Latin text (`EMILIANOZAPATA`, `JARDINESDELMORAL`) and the
 * Tesseract re-read that supplies them does not always agree with it. A run of letters that is not a
 * word itself is split into known words when, and only when, it can be covered entirely by words of
 * the vocabulary below (fewest pieces win); anything else is left as read. The vocabulary is the
 * accent lexicon of `lexicon.ts` plus the address words below: street-type abbreviations as printed on
 * Mexican bills and INE addresses (SEPOMEX / INEGI "Norma Técnica sobre Domicilios Geográficos" 2010
 * vialidad types), the state abbreviations of `lexicon.ts`, Spanish particles of names and places, and frequent words of Mexican street, colony
 * and municipality names (national heroes, saints, flora, orientation words). All folded (no accents).
 */
import { lexiconWords, STATE_ABBREVIATIONS } from './lexicon.ts';

/** Street-type abbreviations and words (INEGI vialidad types) and the address markers of bills. */
const ADDRESS_WORDS = `
C CALLE AV AVENIDA AND ANDADOR PRIV PRIVADA CDA CERRADA BLVD BOULEVARD CJON CALLEJON PROL PROLONGACION CALZ CALZADA CIRC
CIRCUITO CARR CARRETERA RET RETORNO PASEO PERIFERICO VIADUCTO EJE VIAL COL COLONIA FRACC FRACCIONAMIENTO UNIDAD HAB BARRIO
PUEBLO RESIDENCIAL CONJUNTO INT EXT NUM NO MZ MZA LT LOTE EDIF DEPTO DEPARTAMENTO CASA LOCAL SN KM ESQ ENTRE
DE DEL LA LAS LOS EL Y E SAN SANTA SANTO SANTOS NUESTRA SENORA VILLA CIUDAD CD
NORTE SUR ORIENTE PONIENTE OTE PTE CENTRO CENTRAL NUEVO NUEVA VIEJO VIEJA ALTO ALTA BAJO BAJA PRIMERA SEGUNDA TERCERA
PRIMERO SEGUNDO REAL ANTIGUO CAMINO LOMA LOMAS VALLE VISTA BUENA BUENAVISTA HERMOSA BELLA VERDE BLANCA ROJA GRANDE
JARDIN JARDINES BOSQUE BOSQUES PARQUE PRADO PRADOS CAMPO CAMPESTRE RANCHO HACIENDA MOLINO PUENTE PLAZA ALAMEDA MERCADO
FUENTE FUENTES RIO RIOS LAGO LAGUNA MAR PLAYA MONTE MONTES CERRO SIERRA CUMBRE CUMBRES COLINA COLINAS MESA CANADA PEDREGAL
ROSA ROSAS ROSAL AZUCENA AZUCENAS GARDENIA GARDENIAS ORQUIDEA ORQUIDEAS VIOLETA VIOLETAS DALIA DALIAS JAZMIN NARDO
TULIPAN GIRASOL MARGARITA MARGARITAS LIRIO LIRIOS CEDRO CEDROS PINO PINOS ROBLE ROBLES NOGAL NOGALES FRESNO FRESNOS
OLIVO OLIVOS SAUCE SAUCES ALAMO ALAMOS CIPRES SABINO SABINOS LAUREL LAURELES PALMA PALMAS MANGO NARANJO LIMON CEREZO
ACUEDUCTO PENON MIRADOR ESTRELLA SOL LUNA CIELO AURORA PAZ AMOR ESPERANZA LIBERTAD VICTORIA PROGRESO TRABAJO PATRIA
REFORMA REVOLUCION INDEPENDENCIA CONSTITUCION CONSTITUYENTES INSURGENTES REPUBLICA NACIONAL FEDERAL ESTADO MUNICIPIO
HEROES NINOS NINO HEROE MARTIRES MAESTROS MAESTRO OBREROS OBRERO FERROCARRIL FERROCARRILERA ESTACION MILITAR NAVAL AVIACION
HIDALGO MORELOS JUAREZ BENITO ZAPATA EMILIANO MADERO FRANCISCO VILLA PANCHO ALLENDE ALDAMA GUERRERO VICENTE ITURBIDE
CARRANZA VENUSTIANO OBREGON ALVARO CARDENAS LAZARO CUAUHTEMOC MOCTEZUMA NEZAHUALCOYOTL ZARAGOZA IGNACIO MATAMOROS
MARIANO ABASOLO BRAVO NICOLAS GALEANA HERMENEGILDO ORTIZ DOMINGUEZ JOSEFA LEONA VICARIO COLON CRISTOBAL CORREGIDORA
MINA XAVIER MELCHOR OCAMPO PINO SUAREZ SERDAN AQUILES ALVARADO SALVADOR GUADALUPE VICTORIA ANGELES ANGEL AGUILAS AGUILA
AMERICANA AMERICAS OBISPADO MITRAS GRANJA TERESITA PEDRITO COAPA URSULA XALPA MEYEHUALCO CARMEN CONDESA ROMA JALATLACO
ITZIMNA GINERES EVOLUCION TLAPALTITLAN LADRON GUEVARA ANAHUAC GARZA MORAL DIOS JUAN PEDRO PABLO JOSE MARIA LUCAS MATEO
MIGUEL ANDRES ANTONIO LORENZO BARTOLOME FELIPE SEBASTIAN AGUSTIN MARCOS LUIS RAFAEL ISIDRO JERONIMO FRANCISCA ANA
CLARA CATARINA CECILIA LUCIA MONICA BARBARA TERESA INES ELENA MARTA ROSARIO DOLORES SOLEDAD TRINIDAD CRUZ
MEXICO CDMX CUAUHTEMOC COYOACAN IZTAPALAPA GUADALAJARA ZAPOPAN TLAQUEPAQUE MONTERREY PUEBLA TOLUCA MERIDA OAXACA LEON
QUERETARO CANCUN TIJUANA MEXICALI HERMOSILLO CULIACAN CHIHUAHUA SALTILLO TORREON DURANGO AGUASCALIENTES MORELIA
PACHUCA CUERNAVACA TLAXCALA XALAPA VERACRUZ VILLAHERMOSA CAMPECHE CHETUMAL TUXTLA GUTIERREZ COLIMA TEPIC ZACATECAS
POTOSI ACAPULCO CHILPANCINGO NAUCALPAN ECATEPEC TLALNEPANTLA CHALCO TEXCOCO CELAYA IRAPUATO SALAMANCA URUAPAN MAZATLAN
ENSENADA REYNOSA NUEVO LAREDO TAMPICO MATAMOROS
`;

/** Frequent Mexican given names and surnames (INEGI / RENAPO frequency lists; folded). */
const NAME_WORDS = `
JOSE JUAN LUIS CARLOS JESUS MIGUEL ANGEL FRANCISCO ALEJANDRO RAUL HECTOR OSCAR RUBEN JOAQUIN MARTIN GONZALO EFRAIN
SEBASTIAN INAKI NICOLAS JULIAN ADRIAN ROBERTO FERNANDO EDUARDO JORGE DANIEL RAMON TOMAS ANDRES IVAN SALVADOR ARTURO
MANUEL PEDRO RICARDO ENRIQUE JAVIER SERGIO VICTOR ANTONIO ALBERTO MARIO RAFAEL GERARDO PABLO DAVID ALFREDO ARMANDO
GUILLERMO RODRIGO DIEGO EMILIO SANTIAGO MATEO LEONARDO GABRIEL IGNACIO AGUSTIN ERNESTO HUGO CESAR OMAR ISRAEL
MARIA GUADALUPE JOSEFINA VERONICA MONICA BEATRIZ LUCIA XIMENA ROCIO ANGELES ITZEL NOEMI SOFIA ANDREA FERNANDA DANIELA
RAQUEL INES BARBARA ESTEFANIA LETICIA PATRICIA ARACELI ROSALIA NAYELI YOLANDA CONCEPCION ANGELA NATALIA ANA ROSA
MARGARITA LAURA ELIZABETH ALEJANDRA ADRIANA GABRIELA CLAUDIA SILVIA ALICIA CARMEN TERESA MARTHA ELENA LORENA KARLA
PAOLA VALERIA CAMILA REGINA RENATA ISABEL CRISTINA DIANA JULIA PAULA SUSANA SANDRA MIRIAM ESTHER IRMA GLORIA
HERNANDEZ GARCIA MARTINEZ LOPEZ GONZALEZ PEREZ RODRIGUEZ SANCHEZ RAMIREZ CRUZ FLORES GOMEZ MUNOZ PENA NUNEZ IBANEZ
ORDONEZ MORALES VAZQUEZ JIMENEZ REYES DIAZ TORRES GUTIERREZ RUIZ MENDOZA AGUILAR ORTIZ CASTILLO MORENO ROMERO ALVAREZ
CHAVEZ RIOS VEGA CASTANEDA BANUELOS ZUNIGA YANEZ QUINONES ROSA SOLIS BELTRAN ACUNA TREVINO VILLASENOR ESPANA XOCHIPA
RAMOS HERRERA MEDINA CASTRO VARGAS GUZMAN FERNANDEZ SALAZAR DOMINGUEZ ROJAS CONTRERAS LUNA JUAREZ ESTRADA DELGADO
GUERRERO CORTES SANTIAGO ALVARADO SANDOVAL MEJIA LEON CAMPOS VALDEZ CARRILLO NAVARRO SOTO OROZCO ROBLES PACHECO
LEONEL DELIA ELIAS MOLINA SILVA FIGUEROA RANGEL CERVANTES AYALA MARQUEZ LARA ESPINOZA VELAZQUEZ CABRERA CAMACHO NAVA FUENTES RIVERA
`;

const VOCAB: ReadonlySet<string> = new Set([...ADDRESS_WORDS.split(/\s+/), ...NAME_WORDS.split(/\s+/), ...lexiconWords(), ...STATE_ABBREVIATIONS].filter(Boolean));

/** Pieces of one letter allowed inside a split: the conjunctions `Y`/`E` and the initial `I` (`FRANCISCO I MADERO`), `C` (calle). */
const ONE_LETTER = new Set(['Y', 'E', 'I', 'C']);

function fold(w: string): string {
  return w.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase();
}

/** True when the folded word is in the vocabulary. */
export function isKnownWord(word: string): boolean {
  return VOCAB.has(fold(word));
}

/**
 * Splits one run of letters into vocabulary words (`EMILIANOZAPATA` -> `EMILIANO ZAPATA`); returns the
 * run unchanged when it is a word itself, is shorter than 4 letters, or cannot be covered entirely by
 * vocabulary words. Fewest pieces win; among those, the split whose shortest piece is longest. The
 * original characters (accents, Ñ) are kept; only spaces are inserted.
 */
export function splitGluedWord(run: string): string {
  const f = fold(run);
  if (f.length < 4 || VOCAB.has(f) || !/^[A-Z]+$/.test(f) || f.length !== run.length) return run;
  // best[i] = best split of f[0..i): [pieces, shortest piece] ; back[i] = start of its last piece.
  const best: ([number, number] | null)[] = Array.from({ length: f.length + 1 }, () => null);
  const back: number[] = Array.from({ length: f.length + 1 }, () => -1);
  best[0] = [0, Infinity];
  for (let i = 1; i <= f.length; i++) {
    for (let j = Math.max(0, i - 20); j < i; j++) {
      const prev = best[j];
      if (!prev) continue;
      const piece = f.slice(j, i);
      if (piece.length === 1 ? !ONE_LETTER.has(piece) : !VOCAB.has(piece)) continue;
      // A one-letter piece only between two words (not at the end of the run).
      const cand: [number, number] = [prev[0] + 1, Math.min(prev[1], piece.length)];
      const cur = best[i];
      if (!cur || cand[0] < cur[0] || (cand[0] === cur[0] && cand[1] > cur[1])) {
        best[i] = cand;
        back[i] = j;
      }
    }
  }
  if (!best[f.length] || back[f.length] === f.length - 1) return run;
  const cuts: number[] = [];
  for (let i = f.length; i > 0; i = back[i]!) cuts.unshift(back[i]!);
  let out = '';
  cuts.forEach((c, k) => {
    out += (k ? ' ' : '') + run.slice(c, cuts[k + 1] ?? run.length);
  });
  return out;
}

/** Applies {@link splitGluedWord} to every run of letters of an upper-case line (digits and punctuation kept). */
export function splitGluedWords(line: string): string {
  return line.replace(/[A-ZÁÉÍÓÚÜÑ]+/g, (w) => splitGluedWord(w));
}

/**
 * Joins adjacent pieces of a word that a misplaced space split (`PEÑÓ N`, `LA ZARO`, `JA L ATLACO`):
 * two or three adjacent runs of letters, at least one of them not a word itself (so `DE LA PEÑA`
 * stays as it is), whose concatenation is a vocabulary word or splits entirely into vocabulary
 * words at other places (`A VGUERRERO` -> `AV GUERRERO`).
 */
export function joinSplitWords(line: string): string {
  const tokens = line.split(' ');
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    let joined = false;
    // A direct join (the pieces make one word) first, then a re-split of two unknown pieces.
    for (const [k, resplit] of [[3, false], [2, false], [2, true]] as const) {
      const part = tokens.slice(i, i + k);
      if (part.length < k || !part.every((t) => /^[A-ZÁÉÍÓÚÜÑ]+$/.test(t))) continue;
      const word = part.join('');
      if (word.length < 4 || part.every((t) => VOCAB.has(fold(t)))) continue;
      const joinedWord = resplit ? (part.some((t) => VOCAB.has(fold(t))) ? word : splitGluedWord(word)) : word;
      if (resplit ? joinedWord === word : !VOCAB.has(fold(word))) continue;
      out.push(joinedWord);
      i += k - 1;
      joined = true;
      break;
    }
    if (!joined) out.push(tokens[i]!);
  }
  return out.join(' ');
}
