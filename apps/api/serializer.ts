import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

/**
 * Response serializer: each route's zod response schema is turned into JSON Schema once and compiled
 * with fast-json-stringify (Fastify's own serializer), which writes only the declared fields, so a
 * response can never leak a field the schema does not list. Schemas JSON Schema cannot express fall
 * back to the type provider's zod serializer (validate, then JSON.stringify).
 */
export const responseSerializerCompiler: FastifySerializerCompiler<z.ZodType> = (route) => {
  try {
    const json = z.toJSONSchema(route.schema, { io: 'output', unrepresentable: 'throw', target: 'draft-7' });
    const stringify = fastJson(json as Parameters<typeof fastJson>[0]);
    return (data: unknown) => stringify(data);
  } catch {
    return zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0]);
  }
};
