import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SandboxRegistryProvider } from '../../infra/registry-provider/sandbox/sandbox-provider.ts';
import { FixtureError } from '../../infra/registry-provider/sandbox/fixtures.ts';
import { curpCheckDigit, validateCurp } from '../../domain/curp/index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'registry-fixtures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('sandbox provider', () => {
  it('computes the CURP with the engine for people outside the fixtures', async () => {
    const p = new SandboxRegistryProvider();
    const r = await p.getCurp({ nombres: 'María Luisa', primerApellido: 'Pérez', segundoApellido: 'López', sexo: 'M', fechaNacimiento: '1985-07-14', claveEntidad: '14' });
    expect(r.found && r.record.curp.slice(0, 17)).toBe('PELL850714MJCRPS0');
    expect(r.found && validateCurp(r.record.curp).valid).toBe(true);
    expect(r.found && r.record).toMatchObject({ nombres: 'MARIA LUISA', estatus: 'AN', entidadNacimiento: 'JALISCO' });
  });
  it('is stateless: the same request gives the same answer, other lookups do not change it', async () => {
    const p = new SandboxRegistryProvider();
    const req = { nombres: 'Juanito', primerApellido: 'Pérez', segundoApellido: 'López', sexo: 'H' as const, fechaNacimiento: '1990-05-15', claveEntidad: '09' };
    const a = await p.getCurp(req);
    await p.getCurp({ ...req, nombres: 'Juanillo' });
    expect(await p.getCurp(req)).toEqual(a);
    // The fixture registry holds two PELJ900515HDFRPN people (0, 1): a third gets 2.
    expect(a.found && a.record.curp[16]).toBe('2');
  });
  it('is extended by an operator JSON file', async () => {
    const f = file('extra.json', JSON.stringify({
      people: [{ nombres: 'Zoe', primerApellido: 'Quintero', segundoApellido: 'Ruiz', sexo: 'M', fechaNacimiento: '2001-06-01', claveEntidad: '23', estatus: 'BD' }],
      voters: [{ cic: '111222333', estatus: 'VIGENTE', seccion: '9', municipio: 'CANCUN', entidad: 'QUINTANA ROO', fechaVigencia: '2030' }],
    }));
    const p = new SandboxRegistryProvider({ fixtureFiles: [f] });
    expect(p.size).toEqual({ people: 9, voters: 5 });
    const r = await p.getCurp({ nombres: 'ZOE', primerApellido: 'quintero', segundoApellido: 'RUIZ', sexo: 'M', fechaNacimiento: '2001-06-01', claveEntidad: '23' });
    expect(r.found && r.record.estatus).toBe('BD');
    expect(await p.validateVoter({ cic: '111222333' })).toMatchObject({ valid: true, municipio: 'CANCUN', fechaVigencia: '2030' });
  });
  it('is extended by operator CSV files (people and voters), with an explicit CURP kept', async () => {
    const people = file('people.csv', 'nombres,primerApellido,segundoApellido,sexo,fechaNacimiento,claveEntidad,curp,estatus\n"Ana Sofía",Ríos,,M,1999-09-09,NE,RIXA990909MNESXN02,AN\n');
    const voters = file('voters.csv', '\uFEFFcic,identificadorCiudadano,ocr,estatus,valid,message\n555666777,123123123,1231231231231,CANCELADA,false,Credencial cancelada\n');
    const p = new SandboxRegistryProvider({ fixtureFiles: [people, voters], withoutDefaults: true });
    expect(p.size).toEqual({ people: 1, voters: 1 });
    const r = await p.getCurp({ nombres: 'Ana Sofia', primerApellido: 'Rios', sexo: 'M', fechaNacimiento: '1999-09-09', claveEntidad: 'NE' });
    expect(r.found && r.record.curp).toBe('RIXA990909MNESXN02');
    expect(await p.validateVoter({ cic: '555666777' })).toEqual({ valid: false, cic: '555666777', message: 'Credencial cancelada' });
  });
  it('never gives two people the same CURP: explicit homonym characters are skipped', async () => {
    const person = { primerApellido: 'Ruiz', segundoApellido: 'Soto', sexo: 'H' as const, fechaNacimiento: '1980-03-03', claveEntidad: '05' };
    const first16 = 'RUSA800303HCLZTN';
    const p = new SandboxRegistryProvider({
      withoutDefaults: true,
      fixtures: { people: [{ ...person, nombres: 'Ana', curp: first16 + '0' + curpCheckDigit(first16 + '0'), segundoApellido: 'Soto', nacionalidad: undefined, estatus: undefined }] as never, voters: [] },
    });
    const a = await p.getCurp({ ...person, nombres: 'Anton' });
    expect(a.found && a.record.curp.slice(0, 17)).toBe(first16 + '1');
  });

  it('refuses bad fixture files at construction, naming file and record', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['bad.json', '{not json', /not JSON/],
      ['shape.json', '[1,2]', /expected/],
      ['person.json', JSON.stringify({ people: [{ nombres: 'A', primerApellido: 'B', sexo: 'X', fechaNacimiento: '2000-01-01', claveEntidad: '01' }] }), /people\[0\]/],
      ['date.json', JSON.stringify({ people: [{ nombres: 'A', primerApellido: 'B', sexo: 'H', fechaNacimiento: '2000-02-30', claveEntidad: '01' }] }), /fechaNacimiento/],
      ['curp.json', JSON.stringify({ people: [{ nombres: 'A', primerApellido: 'B', sexo: 'H', fechaNacimiento: '2000-01-01', claveEntidad: '01', curp: 'HEGG560427MVZRRL05' }] }), /not valid/],
      ['voter.csv', 'cic,estatus\n12345,VIGENTE\n', /row 2.*cic/],
      ['header.csv', 'a,b\n1,2\n', /header/],
      ['fixtures.txt', 'x', /\.json or \.csv/],
    ];
    for (const [name, text, re] of cases) {
      const f = file(name, text);
      expect(() => new SandboxRegistryProvider({ fixtureFiles: [f] }), name).toThrow(FixtureError);
      expect(() => new SandboxRegistryProvider({ fixtureFiles: [f] }), name).toThrow(re);
    }
    expect(() => new SandboxRegistryProvider({ fixtureFiles: [path.join(dir, 'missing.json')] })).toThrow(/cannot read/);
  });
});

describe('sandbox robustness', () => {
  it('any request that passes validation gets an answer, never an exception (5,000 random names)', async () => {
    const { validateGetCurpRequest } = await import('../../domain/registry/validate-request.ts');
    const { dayNumber } = await import('../../domain/curp/index.ts');
    const p = new SandboxRegistryProvider({ today: '2026-11-21' });
    const alphabet = ['a', 'Ñ', 'ü', 'É', ' ', "'", '-', '.', '\u0301', 'Ж', 'ß', 'ﬁ', 'İ', '中', '٣', 'x', 'MARIA ', 'DE ', 'Y ', 'MC '];
    let seed = 99;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const word = () => Array.from({ length: 1 + rnd(12) }, () => alphabet[rnd(alphabet.length)]).join('');
    let answered = 0;
    for (let i = 0; i < 5000; i++) {
      const body = { nombres: word(), primerApellido: word(), segundoApellido: rnd(2) ? word() : undefined, sexo: 'H', fechaNacimiento: '1990-01-01', claveEntidad: 'NE' };
      const v = validateGetCurpRequest(body, dayNumber('2026-11-21'));
      if (!v.ok) continue;
      const r = await p.getCurp(v.value);
      expect(r.found).toBe(true);
      expect(r.found && r.record.curp).toMatch(/^[A-Z]{4}\d{6}[HM][A-Z]{5}[0-9A-Z]\d$/);
      answered++;
    }
    expect(answered).toBeGreaterThan(500);
  });
});
