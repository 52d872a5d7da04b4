import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  /** Declared type: never trusted for format decisions (judge from the bytes). */
  mimetype: string;
  data: Buffer;
}

export interface MultipartSpec {
  /** Largest file accepted per part, in bytes; exceeding it stops the upload while streaming. */
  maxFileBytes: number;
  /** Error to answer with when a file exceeds `maxFileBytes` (e.g. 413 `image_too_large`). */
  tooLarge: (field: string) => ApiError;
  /** Error to answer when the body is not multipart/form-data. */
  notMultipart?: () => ApiError;
}

export interface MultipartBody {
  files: Map<string, UploadedFile>;
  /** Repeated fields keep every value in order (e.g. `attributes=age&attributes=gender`). */
  fields: Map<string, string[]>;
}

/**
 * Streams a multipart/form-data body: each file is read into memory up to `maxFileBytes` and the
 * request is rejected with `tooLarge` the moment a file exceeds it, before the rest of the body is
 * buffered. The first file of a field wins; later files of the same field are drained and ignored.
 */
export async function readMultipart(request: FastifyRequest, spec: MultipartSpec): Promise<MultipartBody> {
  if (!request.isMultipart()) {
    throw spec.notMultipart?.() ?? new ApiError(400, 'invalid_request', 'Expected a multipart/form-data body');
  }
  const files = new Map<string, UploadedFile>();
  const fields = new Map<string, string[]>();
  try {
    for await (const part of request.parts({ limits: { fileSize: spec.maxFileBytes } })) {
      if (part.type === 'file') {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of part.file) {
          size += (chunk as Buffer).length;
          if (size > spec.maxFileBytes) throw spec.tooLarge(part.fieldname);
          chunks.push(chunk as Buffer);
        }
        if (part.file.truncated) throw spec.tooLarge(part.fieldname);
        if (!files.has(part.fieldname)) {
          files.set(part.fieldname, { field: part.fieldname, filename: part.filename, mimetype: part.mimetype, data: Buffer.concat(chunks) });
        }
      } else {
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        const list = fields.get(part.fieldname) ?? [];
        list.push(value);
        fields.set(part.fieldname, list);
      }
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw spec.tooLarge('file');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new ApiError(400, 'invalid_request', 'Too many parts in the multipart body');
    }
    throw new ApiError(400, 'invalid_request', 'Malformed multipart/form-data body');
  }
  return { files, fields };
}
