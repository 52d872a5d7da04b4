// Generates TypeScript types from an OpenAPI document with openapi-typescript, `format: binary` typed as
// `Blob` (what a browser or Node 20 sends as a multipart file). Runs from this folder so `typescript`
// resolves to the TypeScript 5 compiler API that openapi-typescript needs (the project compiles with
// TypeScript 7, which has no such API).
// Usage: node tools/openapi-client/generate.mjs <openapi.json> <out.d.ts>
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node generate.mjs <openapi.json> <out.d.ts>');
  process.exit(2);
}
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
const ast = await openapiTS(JSON.parse(readFileSync(input, 'utf8')), {
  transform(schemaObject) {
    if (schemaObject.format === 'binary') return BLOB;
    return undefined;
  },
});
writeFileSync(output, astToString(ast));
