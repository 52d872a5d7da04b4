/**
 * Contract of the registry provider port: every adapter, given the embedded fixture registry
 * (`infra/registry-provider/sandbox/fixtures.json`), must answer these lookups the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryUnavailableError, type RegistryProvider } from '../../infra/ports/registry-provider.ts';
import { validateCurp } from '../../domain/curp/index.ts';

export function registryProviderContract(name: string, factory: () => Promise<{ provider: RegistryProvider; cleanup?: () => Promise<void> }>): void {
  describe(`registry provider contract: ${name}`, () => {
    let provider: RegistryProvider;
    let cleanup: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      ({ provider, cleanup } = await factory());
    });
    afterAll(async () => {
      await provider?.close();
      await cleanup?.();
    });

    it('finds a fixture person with the CURP the engine computes', async () => {
      const r = await provider.getCurp({ nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', sexo: 'M', fechaNacimiento: '1956-04-27', claveEntidad: '30' });
      expect(r).toEqual({
        found: true,
        record: {
          curp: 'HEGG560427MVZRRL04',
          nombres: 'GLORIA',
          primerApellido: 'HERNANDEZ',
          segundoApellido: 'GARCIA',
          sexo: 'M',
          fechaNacimiento: '1956-04-27',
          entidadNacimiento: 'VERACRUZ',
          nacionalidad: 'MEX',
          estatus: 'AN',
        },
      });
    });

    it('matches names regardless of case and accents, and gives homonyms successive characters', async () => {
      const a = await provider.getCurp({ nombres: 'JUAN', primerApellido: 'perez', segundoApellido: 'LOPEZ', sexo: 'H', fechaNacimiento: '1990-05-15', claveEntidad: '09' });
      const b = await provider.getCurp({ nombres: 'Jonás', primerApellido: 'Pérez', segundoApellido: 'Lupercio', sexo: 'H', fechaNacimiento: '1990-05-15', claveEntidad: '09' });
      expect(a.found && a.record.curp).toBe('PELJ900515HDFRPN07');
      expect(b.found && b.record.curp.slice(0, 17)).toBe('PELJ900515HDFRPN1');
      expect(b.found && b.record.estatus).toBe('AH');
      expect(b.found && validateCurp(b.record.curp).valid).toBe(true);
    });

    it('keeps Ñ in names, writes it X in the CURP, and uses a letter homonym from 2000', async () => {
      const r = await provider.getCurp({ nombres: 'María Fernanda', primerApellido: 'Núñez', segundoApellido: 'de la Peña', sexo: 'M', fechaNacimiento: '2004-11-02', claveEntidad: '14' });
      expect(r.found && r.record).toMatchObject({ curp: 'NUPF041102MJCXXRA4', primerApellido: 'NUÑEZ', segundoApellido: 'DE LA PEÑA' });
    });

    it('answers people born abroad (NE) and people with one surname', async () => {
      const r = await provider.getCurp({ nombres: 'Hans', primerApellido: 'Müller', sexo: 'H', fechaNacimiento: '1979-01-20', claveEntidad: 'NE' });
      expect(r.found && r.record).toMatchObject({ segundoApellido: '', entidadNacimiento: 'NACIDO EN EL EXTRANJERO', nacionalidad: 'ALE' });
      expect(r.found && r.record.curp.slice(0, 16)).toBe('MUXH790120HNELXN');
    });

    it('reports "not found" as an answer', async () => {
      const r = await provider.getCurp({ nombres: 'Nadie', primerApellido: 'Inexistente', sexo: 'H', fechaNacimiento: '1980-01-01', claveEntidad: '01' });
      expect(r.found).toBe(false);
      expect(!r.found && r.message.length).toBeGreaterThan(0);
    });

    it('validates a current voter credential', async () => {
      const r = await provider.validateVoter({ cic: '123456789', identificadorCiudadano: '987654321', ocr: '1234567890123' });
      expect(r).toEqual({
        valid: true,
        cic: '123456789',
        identificadorCiudadano: '987654321',
        ocr: '1234567890123',
        estatus: 'VIGENTE',
        seccion: '1523',
        municipio: 'GUADALAJARA',
        entidad: 'JALISCO',
        fechaVigencia: '2031-12-31',
        message: 'Esta credencial es vigente como medio de identificación y puedes votar.',
      });
    });

    it('answers valid:false for unknown, invalidated and mismatching credentials', async () => {
      for (const req of [{ cic: '000000001' }, { cic: '345678912' }, { cic: '456789123' }, { cic: '123456789', ocr: '9999999999999' }]) {
        const r = await provider.validateVoter(req);
        expect(r.valid, req.cic).toBe(false);
        expect(Object.keys(r).sort()).toEqual(['cic', 'message', 'valid']);
        expect(r.cic).toBe(req.cic);
      }
    });

    it('rejects with RegistryUnavailableError when the registry cannot answer', async () => {
      await expect(provider.getCurp({ nombres: 'Ana', primerApellido: 'Indisponible', sexo: 'M', fechaNacimiento: '1980-01-01', claveEntidad: '01' })).rejects.toMatchObject({
        name: 'RegistryUnavailableError',
        service: 'renapo',
        reason: 'maintenance',
      });
      await expect(provider.validateVoter({ cic: '999999999' })).rejects.toBeInstanceOf(RegistryUnavailableError);
    });
  });
}
