import { describe, expect, it } from 'vitest';
import {
  CHECK_DIGIT_DICTIONARY,
  CURP_STATES,
  INCONVENIENT_WORDS,
  curpCheckDigit,
  generateCurp,
  generateCurp16,
  homonymCharacter,
  isValidCurp,
  validateCurp,
  dayNumber,
  CurpGenerationError,
  compareCurpWithPerson,
  type CurpPersonData,
} from '../../domain/curp/index.ts';

const TODAY = '2026-11-21';
const TODAY_N = dayNumber(TODAY);

/**
 * Public examples with a known check digit. Sources: python-stdnum `tests/test_mx_curp.doctest` and
 * `stdnum/mx/curp.py` (hypothetical persons, "found online"), pii-manager's CURP test (PEPP...),
 * CURPSuite's README (SABC...). Their check digits were computed by other implementations of the
 * same algorithm, so agreeing with them checks ours independently.
 */
const PUBLIC_VALID = [
  'BOXW310820HNERXN09', // stdnum docstring: born 1931-08-20 abroad (NE)
  'HEGG560427MVZRRL04', // Gloria Hernández García, 1956-04-27, Veracruz
  'BEML920313HMCLNS09', // Luis Raúl Bello Mena, 1992-03-13, Estado de México
  'PEGL890909MJCRMS08', // stdnum doctest
  'AAAA000101HDFCCC09', // stdnum list: homonym digit -> 1900-01-01
  'AAMG890608HDFLJL00',
  'BAAA890317HDFRLL03',
  'BAAD890419HMNRRV07',
  'HEGR891009HMNRRD09',
  'MARR890512HMNRMN09',
  'MESJ890928HMNZNS00',
  'OOMG890727HMNRSR06',
  'TOMA880125HMNRRN02',
  'VIAA900930MMNCLL08',
  'PEPP700101HASRRD09', // pii-manager test: "a valid CURP"
  'SABC560626MDFLRN01', // CURPSuite README: 1956-06-26, Ciudad de México
];

/** Public invalid examples, each with the rule it breaks. */
const PUBLIC_INVALID: Array<[string, string]> = [
  ['BACA890909MJCRMS05', 'inconvenient_word'], // stdnum: "bad word used"
  ['PEGL891313MJCRMS06', 'invalid_birth_date'], // stdnum: month 13
  ['PEGL890909QJCRMS08', 'invalid_sex'], // stdnum: Q is no sex
  ['PEGL890909MQQRMS02', 'invalid_state'], // stdnum: QQ is no state
  ['PEGL890909MJCRMS09', 'invalid_check_digit'], // stdnum: check digit 8, not 9
  // stdnum's list has this OCR-style typo (letter O for zero at position 17) and accepts it. O's value
  // 25 times weight 2 leaves the check digit unchanged, but a letter there means "born from 2000",
  // so the birth date becomes 2088-01-25, in the future.
  ['TOMA880125HMNRRNO2', 'birth_date_in_future'],
  // The placeholder shown on many Mexican forms (and RENAPO's own search page). Its weighted sum is
  // B11*18+A10*17+D13*16+D13*15+1*14+1*13+0*12+3*11+1*10+3*9+H17*8+C12*7+M22*6+L21*5+N23*4+S29*3+0*2
  // = 1374, so its check digit is (10 - 4) % 10 = 6, not 9: it is not a valid CURP.
  ['BADD110313HCMLNS09', 'invalid_check_digit'],
];

/**
 * Worked examples of the assignment rules (Instructivo Normativo para la Asignación de la CURP,
 * DOF 18-10-2021): synthetic people, expected first 16 characters derived by hand from the rules.
 */
const WORKED: Array<{ rule: string; person: CurpPersonData; first16: string }> = [
  { rule: 'public example (stdnum): Gloria Hernández García', person: { nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', sexo: 'M', fechaNacimiento: '1956-04-27', entidad: '30' }, first16: 'HEGG560427MVZRRL' },
  { rule: 'public example (stdnum): Luis Raúl Bello Mena', person: { nombres: 'Luis Raúl', primerApellido: 'Bello', segundoApellido: 'Mena', sexo: 'H', fechaNacimiento: '1992-03-13', entidad: '15' }, first16: 'BEML920313HMCLNS' },
  { rule: 'MARIA skipped in a compound given name', person: { nombres: 'María Luisa', primerApellido: 'Pérez', segundoApellido: 'López', sexo: 'M', fechaNacimiento: '1985-07-14', entidad: '14' }, first16: 'PELL850714MJCRPS' },
  { rule: 'JOSE skipped in a compound given name', person: { nombres: 'José Antonio', primerApellido: 'Ramírez', segundoApellido: 'Soto', sexo: 'H', fechaNacimiento: '1970-01-30', entidad: '09' }, first16: 'RASA700130HDFMTN' },
  { rule: 'MARIA alone is used', person: { nombres: 'María', primerApellido: 'Gómez', segundoApellido: 'Ruiz', sexo: 'M', fechaNacimiento: '1999-12-31', entidad: '19' }, first16: 'GORM991231MNLMZR' },
  { rule: 'abbreviation MA. skipped', person: { nombres: 'Ma. Guadalupe', primerApellido: 'Sánchez', segundoApellido: 'Díaz', sexo: 'M', fechaNacimiento: '1960-05-05', entidad: '21' }, first16: 'SADG600505MPLNZD' },
  { rule: 'abbreviation J. skipped', person: { nombres: 'J. Luis', primerApellido: 'Moreno', segundoApellido: 'Castillo', sexo: 'H', fechaNacimiento: '1955-12-12', entidad: '08' }, first16: 'MOCL551212HCHRSS' },
  { rule: 'MARIA then particles DE LOS skipped', person: { nombres: 'María de los Ángeles', primerApellido: 'Torres', segundoApellido: 'Vega', sexo: 'M', fechaNacimiento: '1978-10-02', entidad: '26' }, first16: 'TOVA781002MSRRGN' },
  { rule: 'MARIA then particle DEL skipped', person: { nombres: 'María del Carmen', primerApellido: 'Flores', segundoApellido: 'Aguilar', sexo: 'M', fechaNacimiento: '1962-07-16', entidad: '03' }, first16: 'FOAC620716MBSLGR' },
  { rule: 'MARIA JOSE: only the first name is skipped', person: { nombres: 'María José', primerApellido: 'Vázquez', segundoApellido: 'Lara', sexo: 'M', fechaNacimiento: '2010-10-10', entidad: '22' }, first16: 'VALJ101010MQTZRS' },
  { rule: 'particles DE LA in the first surname', person: { nombres: 'Carlos', primerApellido: 'de la Cruz', segundoApellido: 'Mendoza', sexo: 'H', fechaNacimiento: '1982-03-15', entidad: '20' }, first16: 'CUMC820315HOCRNR' },
  { rule: 'particle DEL; no internal consonant gives X', person: { nombres: 'Pedro', primerApellido: 'Del Río', segundoApellido: 'Ortiz', sexo: 'H', fechaNacimiento: '1965-08-20', entidad: '24' }, first16: 'RIOP650820HSPXRD' },
  { rule: 'particle MC', person: { nombres: 'Diana', primerApellido: 'Mc Gregor', segundoApellido: 'Fuentes', sexo: 'M', fechaNacimiento: '1990-06-11', entidad: '02' }, first16: 'GEFD900611MBCRNN' },
  { rule: 'particle MAC', person: { nombres: 'Bruno', primerApellido: 'Mac Kenzie', segundoApellido: 'Ríos', sexo: 'H', fechaNacimiento: '1968-04-15', entidad: '25' }, first16: 'KERB680415HSLNSR' },
  { rule: 'particle VON', person: { nombres: 'Elsa', primerApellido: 'Von Bertrab', segundoApellido: 'Garza', sexo: 'M', fechaNacimiento: '1984-01-31', entidad: '32' }, first16: 'BEGE840131MZSRRL' },
  { rule: 'particles VAN DER; no second surname; born abroad (NE)', person: { nombres: 'Hans', primerApellido: 'Van der Berg', segundoApellido: null, sexo: 'H', fechaNacimiento: '1975-09-09', entidad: 'NE' }, first16: 'BEXH750909HNERXN' },
  { rule: 'particle Y in the second surname', person: { nombres: 'Rosa', primerApellido: 'Ortega', segundoApellido: 'y Gasset', sexo: 'M', fechaNacimiento: '1946-06-06', entidad: '07' }, first16: 'OEGR460606MCSRSS' },
  { rule: 'Ñ written X (internal consonant); born 2001 -> homonym letter', person: { nombres: 'Ana', primerApellido: 'Núñez', segundoApellido: 'Ibáñez', sexo: 'M', fechaNacimiento: '2001-01-01', entidad: '31' }, first16: 'NUIA010101MYNXBN' },
  { rule: 'Ñ as initial written X', person: { nombres: 'Eduardo', primerApellido: 'Ñeco', segundoApellido: 'Luna', sexo: 'H', fechaNacimiento: '1988-11-11', entidad: '16' }, first16: 'XELE881111HMNCND' },
  { rule: 'accents dropped', person: { nombres: 'Iván', primerApellido: 'Álvarez', segundoApellido: 'Uribe', sexo: 'H', fechaNacimiento: '1995-04-04', entidad: '05' }, first16: 'AAUI950404HCLLRV' },
  { rule: 'diaeresis dropped, Ñ in second surname', person: { nombres: 'Agustín', primerApellido: 'Argüello', segundoApellido: 'Peña', sexo: 'H', fechaNacimiento: '1972-08-08', entidad: '11' }, first16: 'AUPA720808HGTRXG' },
  { rule: "apostrophe skipped inside a surname; leap day 1980", person: { nombres: 'Liam', primerApellido: "O'Farrill", segundoApellido: 'Soto', sexo: 'H', fechaNacimiento: '1980-02-29', entidad: '23' }, first16: 'OASL800229HQRFTM' },
  { rule: 'special character as initial gives X', person: { nombres: 'Raúl', primerApellido: 'Soto', segundoApellido: '/Ruiz', sexo: 'H', fechaNacimiento: '1977-03-03', entidad: '04' }, first16: 'SOXR770303HCCTRL' },
  { rule: 'no internal vowel gives X', person: { nombres: 'Grace', primerApellido: 'Wynn', segundoApellido: 'Smith', sexo: 'M', fechaNacimiento: '1991-09-19', entidad: 'NE' }, first16: 'WXSG910919MNEYMR' },
  { rule: 'inconvenient word BACA -> BXCA', person: { nombres: 'Ana', primerApellido: 'Barragán', segundoApellido: 'Castro', sexo: 'M', fechaNacimiento: '1993-03-03', entidad: '01' }, first16: 'BXCA930303MASRSN' },
  { rule: 'inconvenient word PUTO -> PXTO', person: { nombres: 'Óscar', primerApellido: 'Puente', segundoApellido: 'Torres', sexo: 'H', fechaNacimiento: '1987-07-07', entidad: '12' }, first16: 'PXTO870707HGRNRS' },
  { rule: 'inconvenient word LOCO -> LXCO (born 2003)', person: { nombres: 'Omar', primerApellido: 'Lozano', segundoApellido: 'Cortés', sexo: 'H', fechaNacimiento: '2003-05-20', entidad: '13' }, first16: 'LXCO030520HHGZRM' },
  { rule: 'empty second surname; JOSE alone used; leap day 2000', person: { nombres: 'José', primerApellido: 'Ruiz', segundoApellido: '', sexo: 'H', fechaNacimiento: '2000-02-29', entidad: '28' }, first16: 'RUXJ000229HTSZXS' },
  { rule: 'lower case and extra spaces', person: { nombres: '  juan   carlos ', primerApellido: 'lópez', segundoApellido: 'obrador', sexo: 'H', fechaNacimiento: '1953-11-13', entidad: '27' }, first16: 'LOOJ531113HTCPBN' },
  { rule: 'state given as CURP code instead of claveEntidad', person: { nombres: 'Laura', primerApellido: 'Campos', segundoApellido: 'Mora', sexo: 'M', fechaNacimiento: '1986-12-01', entidad: 'tl' }, first16: 'CAML861201MTLMRR' },
];

const WORKED_FULL = WORKED.map((w) => {
  const h = Number(w.person.fechaNacimiento.slice(0, 4)) < 2000 ? '0' : 'A';
  return w.first16 + h + curpCheckDigit(w.first16 + h);
});

describe('CURP check digit', () => {
  it('agrees with every public example', () => {
    for (const c of PUBLIC_VALID) expect(curpCheckDigit(c), c).toBe(c[17]);
  });
  it('puts Ñ between N and O in the dictionary', () => {
    expect(CHECK_DIGIT_DICTIONARY.indexOf('Ñ')).toBe(24);
    expect(CHECK_DIGIT_DICTIONARY.length).toBe(37);
  });
  it('refuses short or foreign input instead of guessing', () => {
    expect(curpCheckDigit('ABC')).toBeNull();
    expect(curpCheckDigit('HEGG560427MVZRRL-')).toBeNull();
    expect(curpCheckDigit('HEGG560427MVZRRLÑ')).toBeNull();
  });
});

describe('validateCurp: public examples', () => {
  it.each(PUBLIC_VALID)('%s is valid', (c) => {
    const v = validateCurp(c, { today: TODAY });
    expect(v.errors).toEqual([]);
    expect(v.valid).toBe(true);
    expect(isValidCurp(c, TODAY_N)).toBe(true);
  });
  it.each(PUBLIC_INVALID)('%s is rejected for %s', (c, code) => {
    const v = validateCurp(c, { today: TODAY });
    expect(v.valid).toBe(false);
    expect(v.errors.map((e) => e.code)).toContain(code);
    expect(isValidCurp(c, TODAY_N)).toBe(false);
  });
  it('decodes components', () => {
    const v = validateCurp('HEGG560427MVZRRL04', { today: TODAY });
    expect(v.components).toEqual({
      name_initials: 'HEGG',
      birth_date: '1956-04-27',
      sex: 'M',
      state: 'VERACRUZ',
      state_code: 'VZ',
      clave_entidad: '30',
      foreign_born: false,
      internal_consonants: 'RRL',
      homonym_character: '0',
      check_digit: '4',
      expected_check_digit: '4',
    });
    const ne = validateCurp('BOXW310820HNERXN09', { today: TODAY }).components!;
    expect(ne).toMatchObject({ foreign_born: true, state: 'NACIDO EN EL EXTRANJERO', clave_entidad: 'NE', birth_date: '1931-08-20', sex: 'H' });
  });
});

describe('generateCurp16: worked examples of the assignment rules', () => {
  it.each(WORKED.map((w) => [w.rule, w] as const))('%s', (_rule, w) => {
    expect(generateCurp16(w.person)).toBe(w.first16);
  });
  it('full CURPs built from them are valid, with the century-dependent homonym character', () => {
    WORKED.forEach((w, i) => {
      const full = generateCurp(w.person);
      expect(full).toBe(WORKED_FULL[i]);
      const v = validateCurp(full, { today: TODAY });
      expect(v.errors, full).toEqual([]);
      expect(v.components!.birth_date).toBe(w.person.fechaNacimiento);
      expect(v.components!.sex).toBe(w.person.sexo);
    });
    expect(WORKED_FULL[0]).toBe('HEGG560427MVZRRL04');
    expect(WORKED_FULL[1]).toBe('BEML920313HMCLNS09');
  });
  it('homonym characters: digits up to 1999, letters from 2000', () => {
    expect(homonymCharacter(1999)).toBe('0');
    expect(homonymCharacter(1999, 9)).toBe('9');
    expect(homonymCharacter(2000)).toBe('A');
    expect(homonymCharacter(2024, 25)).toBe('Z');
    expect(() => homonymCharacter(1999, 10)).toThrow(CurpGenerationError);
    expect(() => homonymCharacter(2000, 26)).toThrow(CurpGenerationError);
    const p = WORKED[2]!.person;
    expect(generateCurp(p, { homonym: '3' })).toMatch(/^PELL850714MJCRPS3\d$/);
    expect(() => generateCurp(p, { homonym: 'B' })).toThrow(/does not fit/);
  });
  it('refuses bad data with CurpGenerationError naming the field', () => {
    const base = WORKED[2]!.person;
    const cases: Array<[Partial<CurpPersonData>, string]> = [
      [{ nombres: '   ' }, 'nombres'],
      [{ primerApellido: '' }, 'primerApellido'],
      [{ fechaNacimiento: '1985-02-30' }, 'fechaNacimiento'],
      [{ fechaNacimiento: '1899-12-31' }, 'fechaNacimiento'],
      [{ fechaNacimiento: '85-07-14' }, 'fechaNacimiento'],
      [{ sexo: 'X' as 'H' }, 'sexo'],
      [{ entidad: '33' }, 'entidad'],
      [{ entidad: '00' }, 'entidad'],
    ];
    for (const [patch, field] of cases) {
      try {
        generateCurp16({ ...base, ...patch });
        expect.fail(`accepted ${JSON.stringify(patch)}`);
      } catch (e) {
        expect(e).toBeInstanceOf(CurpGenerationError);
        expect((e as CurpGenerationError).field).toBe(field);
      }
    }
  });
  it('every inconvenient word is avoided by generation', () => {
    // A surname/name combination spelling each word: W1 W2 (first surname) + W3 (second) + W4 (name).
    for (const w of INCONVENIENT_WORDS) {
      const person: CurpPersonData = {
        primerApellido: w.slice(0, 2) + 'RR', // internal vowel w[1] (all words have a vowel second)
        segundoApellido: w.slice(2, 3) + 'ORTES',
        nombres: w.slice(3, 4) + 'NA',
        sexo: 'M',
        fechaNacimiento: '1990-01-01',
        entidad: '01',
      };
      const c = generateCurp(person);
      expect(c.slice(0, 4), w).toBe(w.slice(0, 1) + 'X' + w.slice(2, 4));
      expect(isValidCurp(c, TODAY_N), c).toBe(true);
    }
    expect(INCONVENIENT_WORDS.size).toBe(81);
  });
});

describe('validateCurp: rules one by one', () => {
  const base = 'HEGG560427MVZRRL04';
  const withCheck = (first17: string) => first17 + curpCheckDigit(first17);
  it('century comes from the homonym character (1900-02-29 does not exist, 2000-02-29 does)', () => {
    const c1900 = withCheck('RUXJ000229HTSZXS0');
    const c2000 = withCheck('RUXJ000229HTSZXSA');
    expect(validateCurp(c1900, { today: TODAY }).errors.map((e) => e.code)).toEqual(['invalid_birth_date']);
    expect(validateCurp(c2000, { today: TODAY }).valid).toBe(true);
    expect(validateCurp(c2000, { today: TODAY }).components!.birth_date).toBe('2000-02-29');
  });
  it('birth dates in the future are rejected relative to the reference day', () => {
    const c = withCheck('RUXJ261122HTSZXSA'); // 2026-11-22
    expect(validateCurp(c, { today: '2026-11-21' }).errors.map((e) => e.code)).toEqual(['birth_date_in_future']);
    expect(validateCurp(c, { today: '2026-11-22' }).valid).toBe(true);
    expect(isValidCurp(c, dayNumber('2026-11-21'))).toBe(false);
    expect(isValidCurp(c, dayNumber('2026-11-22'))).toBe(true);
  });
  it('every state code of Anexo 1 and NE is accepted, others are not', () => {
    for (const s of CURP_STATES) expect(isValidCurp(withCheck(`HEGG560427M${s.code}RRL0`), TODAY_N), s.code).toBe(true);
    for (const bad of ['XX', 'DD', 'QO', 'MX', 'EX']) {
      expect(validateCurp(withCheck(`HEGG560427M${bad}RRL0`), { today: TODAY }).errors.map((e) => e.code)).toEqual(['invalid_state']);
    }
    expect(CURP_STATES).toHaveLength(33);
  });
  it('position 2 must be a vowel or X, positions 14-16 consonants', () => {
    expect(validateCurp(withCheck('HBGG560427MVZRRL0'), { today: TODAY }).errors.map((e) => e.code)).toEqual(['invalid_name_initials']);
    expect(validateCurp(withCheck('HXGG560427MVZRRL0'), { today: TODAY }).valid).toBe(true);
    expect(validateCurp(withCheck('HEGG560427MVZRAL0'), { today: TODAY }).errors.map((e) => e.code)).toEqual(['invalid_internal_consonants']);
    expect(validateCurp(withCheck('HEGG560427MVZ1RL0'), { today: TODAY }).errors.map((e) => e.code)).toEqual(['invalid_internal_consonants']);
  });
  it('sex must be H or M', () => {
    expect(validateCurp(withCheck('HEGG560427XVZRRL0'), { today: TODAY }).errors.map((e) => e.code)).toEqual(['invalid_sex']);
  });
  it('normalises case and surrounding spaces, reports length and characters', () => {
    expect(validateCurp(`  ${base.toLowerCase()}\n`, { today: TODAY }).valid).toBe(true);
    expect(validateCurp('HEGG560427', { today: TODAY }).errors[0]!.code).toBe('invalid_length');
    expect(validateCurp('', { today: TODAY }).components).toBeNull();
    const n = validateCurp('ÑEGG560427MVZRRL04', { today: TODAY });
    expect(n.errors.map((e) => e.code)).toEqual(['invalid_characters', 'invalid_name_initials', 'invalid_check_digit']);
    expect(validateCurp('HEGG56O427MVZRRL04', { today: TODAY }).errors.map((e) => e.code)).toContain('invalid_birth_date');
  });
  it('never throws on hostile input', () => {
    for (const x of [null, undefined, 42, {}, [], 'x'.repeat(1_000_000), '\u0000'.repeat(18), '🙂'.repeat(9), 'HEGG560427MVZRRL0\uD800']) {
      const v = validateCurp(x, { today: TODAY });
      expect(v.valid).toBe(false);
      expect(v.curp.length).toBeLessThanOrEqual(64);
      expect(isValidCurp(typeof x === 'string' ? x : '', TODAY_N)).toBe(false);
    }
  });
});

describe('single-character mutations', () => {
  // Every valid CURP above (public and worked), every position, every other symbol of A-Z0-9.
  const valid = [...PUBLIC_VALID, ...WORKED_FULL];
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const value = (ch: string) => CHECK_DIGIT_DICTIONARY.indexOf(ch);

  it(`at least 100 justified CURPs are exercised (${valid.length} valid, ${PUBLIC_INVALID.length} public invalid, plus mutations)`, () => {
    expect(valid.length + PUBLIC_INVALID.length).toBeGreaterThanOrEqual(50);
  });

  it('the check digit rejects every mutation it can see; the rest are caught by structure or are provably invisible', () => {
    let total = 0, byCheck = 0, byStructureOnly = 0, invisible = 0;
    for (const c of valid) {
      for (let i = 0; i < 18; i++) {
        for (const ch of ALPHABET) {
          if (ch === c[i]) continue;
          total++;
          const m = c.slice(0, i) + ch + c.slice(i + 1);
          const v = validateCurp(m, { today: TODAY });
          expect(isValidCurp(m, TODAY_N), m).toBe(v.valid); // the fast path agrees with the full one
          const codes = v.errors.map((e) => e.code);
          // Does the change move the weighted sum mod 10 (or the 18th character itself)?
          const visible = i === 17 || ((value(ch) - value(c[i]!)) * (18 - i)) % 10 !== 0;
          if (visible) {
            expect(codes, m).toContain('invalid_check_digit');
            byCheck++;
          } else if (!v.valid) {
            expect(codes, m).not.toContain('invalid_check_digit');
            byStructureOnly++;
          } else {
            // Invisible to any rule: only at weights 10 (day tens digit), 5/15 or when the change is 5.
            expect([10, 5, 15].includes(18 - i) || Math.abs(value(ch) - value(c[i]!)) % 5 === 0, m).toBe(true);
            invisible++;
          }
        }
      }
    }
    // Printed for the docs: how much of the single-character error space each layer catches.
    console.info(`CURP mutations: ${total} total, ${byCheck} caught by the check digit, ${byStructureOnly} by structure only, ${invisible} undetectable`);
    expect(total).toBe(valid.length * 18 * 35);
    expect(byCheck / total).toBeGreaterThan(0.75);
    expect(invisible / total).toBeLessThan(0.07);
  });

  it('next-symbol mutations (the typical OCR slip) are all rejected except at the day tens digit', () => {
    for (const c of valid) {
      for (let i = 0; i < 18; i++) {
        if (i === 8) continue; // weight 10: invisible to the check digit by construction
        const cur = c[i]!;
        const next = cur === '9' ? '8' : cur === 'Z' ? 'Y' : cur === 'N' ? 'O' : String.fromCharCode(cur.charCodeAt(0) + 1);
        const m = c.slice(0, i) + next + c.slice(i + 1);
        expect(validateCurp(m, { today: TODAY }).valid, m).toBe(false);
      }
    }
  });
});

describe('generation agrees with validation on random people', () => {
  it('1,000 pseudo-random people give valid CURPs that decode back to their data', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const names = ['María José', 'José', 'Ana Sofía', 'Ñoño', 'Luis', 'Ma. Elena', 'Juan de Dios', 'Zoë', "D'Angelo", 'Xóchitl'];
    const surnames = ['Pérez', 'de la Peña', 'Mc Donald', 'Núñez', 'Ugalde', 'Wynn', 'Ávila', 'Van Houten', 'Ibarra', 'Y'];
    for (let k = 0; k < 1000; k++) {
      const year = 1900 + rnd(126);
      const month = 1 + rnd(12);
      const day = 1 + rnd(28);
      const p: CurpPersonData = {
        nombres: names[rnd(names.length)]!,
        primerApellido: surnames[rnd(surnames.length)]!,
        segundoApellido: rnd(4) === 0 ? undefined : surnames[rnd(surnames.length)]!,
        sexo: rnd(2) ? 'H' : 'M',
        fechaNacimiento: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
        entidad: CURP_STATES[rnd(CURP_STATES.length)]!.claveEntidad,
      };
      if (Number(p.fechaNacimiento.replaceAll('-', '')) > TODAY_N) continue;
      const c = generateCurp(p);
      const v = validateCurp(c, { today: TODAY });
      expect(v.errors, `${c} ${JSON.stringify(p)}`).toEqual([]);
      expect(v.components!.birth_date).toBe(p.fechaNacimiento);
      expect(v.components!.clave_entidad).toBe(p.entidad);
    }
  });
});

describe('compareCurpWithPerson', () => {
  it('agrees with the data a CURP was generated from, for every worked example', () => {
    WORKED.forEach((w, i) => {
      const r = compareCurpWithPerson(WORKED_FULL[i]!, w.person);
      expect(r, w.rule).toEqual({ consistent: true, mismatches: [], unchecked: [] });
    });
  });
  it('names each part that disagrees, and what it could not check', () => {
    const c = 'HEGG560427MVZRRL04';
    expect(compareCurpWithPerson(c, { nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', fechaNacimiento: '1956-04-27', sexo: 'M', entidad: '30' }).consistent).toBe(true);
    expect(compareCurpWithPerson(c, { nombres: 'Gladys', primerApellido: 'Hernández', segundoApellido: 'García' }).mismatches).toEqual([]); // same initials and consonants
    expect(compareCurpWithPerson(c, { nombres: 'Laura', primerApellido: 'Hernández', segundoApellido: 'García' }).mismatches).toEqual(['name_initials', 'internal_consonants']);
    expect(compareCurpWithPerson(c, { fechaNacimiento: '2056-04-27' }).mismatches).toEqual(['birth_date']); // century from the homonym digit
    expect(compareCurpWithPerson(c, { fechaNacimiento: '1956-04-28', sexo: 'H', entidad: 'JC' })).toEqual({
      consistent: false,
      mismatches: ['birth_date', 'sex', 'state'],
      unchecked: ['name_initials', 'internal_consonants'],
    });
    expect(compareCurpWithPerson('HEGG', {}).consistent).toBe(false);
  });
});
