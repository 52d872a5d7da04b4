/**
 * The CURP engine: validation, decoding and generation of the Clave Única de Registro de Población.
 * Pure functions, no IO. Exported names are stable (listed in docs/registry.md): OCR and the registry
 * lookups depend on them.
 */
export { CHECK_DIGIT_DICTIONARY, curpCheckDigit } from './check-digit.ts';
export {
  CURP_STATES,
  FOREIGN_BORN_CODE,
  INCONVENIENT_WORDS,
  NAME_PARTICLES,
  SKIPPED_GIVEN_NAMES,
  stateByClaveEntidad,
  stateByCurpCode,
  type CurpState,
} from './catalog.ts';
export {
  dayNumber,
  daysInMonth,
  isValidCurp,
  validateCurp,
  type CurpComponents,
  type CurpErrorCode,
  type CurpValidation,
  type CurpValidationError,
  type ValidateCurpOptions,
} from './validate.ts';
export {
  CurpGenerationError,
  curpGivenNameWord,
  curpInternalConsonants,
  curpNameInitials,
  curpStateCode,
  curpSurnameWord,
  generateCurp,
  generateCurp16,
  homonymCharacter,
  normalizeCurpName,
  parseIsoDate,
  type CurpPersonData,
} from './generate.ts';
export { compareCurpWithPerson, type CurpMismatch, type CurpPersonComparison } from './compare.ts';
