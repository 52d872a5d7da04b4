/**
 * MRZ engine: ICAO Doc 9303 check digits, TD1/TD2/TD3 parsing (plus the French national ID and
 * Swiss driving licence layouts), check-digit-guided confusable correction, INE conventions and
 * line builders. See docs/mrz.md for the exported API.
 */
export { computeCheckDigit, isCheckDigitValid, mrzCharValue, MRZ_ALPHABET } from './check-digit.ts';
export { correctMrz, LETTER_TO_DIGIT, DIGIT_TO_LETTER, type MrzCorrection } from './correct.ts';
export { detectLayout, LAYOUTS, type MrzFormat, type LayoutDef, type FieldDef, type FieldKind, type CheckName } from './formats.ts';
export {
  parseMrz, normalizeMrzLines, normalizeMrzText, readDate,
  type MrzParseResult, type MrzFields, type MrzCheck, type MrzCheckSummary, type MrzProblem, type ParseMrzOptions,
} from './parse.ts';
export { correctMrzLine, inferLineKind, lineLayout, repairMrzFillers, type MrzLineKind, type MrzLineResult } from './line.ts';
export { readIneMrz, ineGender, buildIneMrz, type IneMrzData, type IneMrzInput } from './ine.ts';
export { buildTd1, buildTd3, mrzName, padMrz, transliterateForMrz, type Td1Input, type Td3Input } from './build.ts';
export {
  decodeFixedLength, decodeGreedy, estimateRowLength, chooseRowLength, columnPrior, substitutionCosts, allowedCharacters,
  MRZ_CHARACTERS, MRZ_CLASSES, MRZ_ROW_LENGTHS, type MrzPosteriors, type DecodedRow, type ColumnPrior,
} from './ctc.ts';
export { correctWithCosts, type CostCorrectionOptions } from './ctc-correct.ts';
export { decodeMrzRow, decodeMrzRows, type DecodedMrz } from './ctc-rows.ts';
