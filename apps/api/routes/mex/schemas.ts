/** zod schemas of the registry routes (OpenAPI document and response serialisation). */
import { z } from 'zod';

/** Top-level fields every registry answer carries. */
const envelope = {
  success: z.literal(true),
  status: z.literal('OK').describe('`OK` for an answer; errors carry `ERROR`.'),
  processing_time: z.number().describe('Seconds spent answering.').meta({ example: 0.412 }),
  sandbox: z
    .literal(true)
    .optional()
    .describe('Present (true) when the answer comes from the sandbox registry of synthetic people, never from RENAPO/INE. Also signalled by the `X-Registry-Sandbox: true` header.'),
};

/** get-curp request body (spec: Government registry lookups). */
export const GetCurpBody = z.object({
  nombres: z.string().describe('Given name(s), as on the birth certificate.').meta({ example: 'Gloria' }),
  primerApellido: z.string().describe('First (paternal) surname.').meta({ example: 'Hernández' }),
  segundoApellido: z.string().optional().describe('Second (maternal) surname; omit when the person has only one.').meta({ example: 'García' }),
  sexo: z.enum(['H', 'M']).describe('`H` (hombre) or `M` (mujer).').meta({ example: 'M' }),
  fechaNacimiento: z.string().describe('Birth date `YYYY-MM-DD`: a real date, not in the future.').meta({ example: '1956-04-27' }),
  claveEntidad: z
    .string()
    .describe('State of birth: `01` Aguascalientes ... `32` Zacatecas (INEGI order, see the spec), or `NE` for people born abroad.')
    .meta({ example: '30' }),
});

/** CURP result (spec: Government registry results), all strings. */
export const CurpResult = z.object({
  curp: z.string().describe('18-character CURP.').meta({ example: 'HEGG560427MVZRRL04' }),
  nombres: z.string().meta({ example: 'GLORIA' }),
  primerApellido: z.string().meta({ example: 'HERNANDEZ' }),
  segundoApellido: z.string().describe('Empty when the person has one surname.').meta({ example: 'GARCIA' }),
  sexo: z.string().meta({ example: 'M' }),
  fechaNacimiento: z.string().meta({ example: '1956-04-27' }),
  entidadNacimiento: z.string().meta({ example: 'VERACRUZ' }),
  nacionalidad: z.string().meta({ example: 'MEX' }),
  estatus: z.string().describe('RENAPO status of the CURP: AN (alta normal), AH (alta con homonimia), RCC/RCN (changes), BD (baja por defunción)...').meta({ example: 'AN' }),
});

/** get-curp 200 body. */
export const GetCurpResponse = z.object({ ...envelope, data: CurpResult });

/** validate-voter-list request body. */
export const VoterListBody = z
  .object({
    cic: z.string().describe('CIC, 9 digits (front of the credential, below the photo).').meta({ example: '123456789' }),
    identificadorCiudadano: z.string().optional().describe('Citizen identifier, 9 digits (front, top right).').meta({ example: '987654321' }),
    ocr: z.string().optional().describe('OCR code, 13 digits (back, bottom).').meta({ example: '1234567890123' }),
  })
  .catchall(z.string())
  .describe('Extra string parameters (up to 10) are passed to the provider to improve accuracy.');

/** Voter result of a valid credential. */
export const VoterValid = z.object({
  valid: z.literal(true),
  cic: z.string(),
  identificadorCiudadano: z.string(),
  ocr: z.string(),
  estatus: z.string().meta({ example: 'VIGENTE' }),
  seccion: z.string().meta({ example: '1523' }),
  municipio: z.string().meta({ example: 'GUADALAJARA' }),
  entidad: z.string().meta({ example: 'JALISCO' }),
  fechaVigencia: z.string().meta({ example: '2031-12-31' }),
  message: z.string(),
});
/** Voter result of a credential not found or invalidated (HTTP 200). */
export const VoterNotValid = z.object({
  valid: z.literal(false),
  cic: z.string(),
  message: z.string().meta({ example: 'La credencial no se encuentra en la Lista Nominal de Electores.' }),
});

/** validate-voter-list 200 body. */
export const VoterListResponse = z.object({
  ...envelope,
  data: z.discriminatedUnion('valid', [VoterValid, VoterNotValid]).describe('A credential not found or invalidated answers HTTP 200 with only `valid`=false, `cic` and `message`.'),
});

/** curp/validate request body. */
export const CurpValidateBody = z.object({
  curp: z.string().describe('The CURP to check (case and surrounding spaces ignored).').meta({ example: 'HEGG560427MVZRRL04' }),
});

/** curp/validate 200 body. */
export const CurpValidateResponse = z.object({
  success: z.literal(true),
  data: z.object({
    curp: z.string().describe('The CURP as checked (trimmed, upper case).'),
    valid: z.boolean(),
    errors: z
      .array(
        z.object({
          code: z.string().describe('invalid_length, invalid_characters, invalid_name_initials, inconvenient_word, invalid_birth_date, birth_date_in_future, invalid_sex, invalid_state, invalid_internal_consonants, invalid_homonym_character, invalid_check_digit'),
          positions: z.array(z.number().int()).describe('1-based positions at fault.'),
          message: z.string(),
        }),
      )
      .describe('Every rule the CURP breaks; empty when valid.'),
    components: z
      .object({
        name_initials: z.string(),
        birth_date: z.string().nullable().describe('YYYY-MM-DD; century from position 17.'),
        sex: z.enum(['H', 'M']).nullable(),
        state: z.string().nullable().describe('State of birth, or NACIDO EN EL EXTRANJERO.'),
        state_code: z.string().describe('Positions 12-13.'),
        clave_entidad: z.string().nullable().describe('01-32 or NE.'),
        foreign_born: z.boolean(),
        internal_consonants: z.string(),
        homonym_character: z.string(),
        check_digit: z.string(),
        expected_check_digit: z.string().nullable(),
      })
      .nullable()
      .describe('What the CURP encodes; null when it is not 18 characters long.'),
  }),
});

/** Registry error body (OpenAPI document; loose so that no field is ever dropped when serialising). */
export const RegistryError = z
  .looseObject({
    success: z.literal(false),
    status: z.literal('ERROR'),
    type: z.string().describe('MISSING_PARAMETER, INVALID_PARAMETER, NOT_FOUND or SERVICE_UNAVAILABLE.'),
    message: z.string(),
    error_code: z.string().optional().describe('`SERVICE_UNAVAILABLE` on 503.'),
    details: z.record(z.string(), z.unknown()).optional().describe('On 503: `service` (RENAPO or INE), `error_message`, `reason`.'),
    sandbox: z.literal(true).optional().describe('Present on sandbox answers.'),
  })
  .describe('Registry error shape.');

/** The spec's 402 body on registry routes (rendered by the platform edge). */
export const InsufficientCredits = z
  .looseObject({
    success: z.literal(false),
    error: z.literal('Insufficient credits'),
    credits_required: z.number(),
    credits_available: z.number(),
  })
  .describe('Insufficient credits.');

/** Documented error answers of the priced lookups. */
export const lookupErrorResponses = { 400: RegistryError, 402: InsufficientCredits, 503: RegistryError } as const;
