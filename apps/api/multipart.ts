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

/** A file over the reader's byte limit (mapped to the route's `tooLarge` answer). */
class FileTooLarge extends Error {
  constructor(readonly field: string) {
    super(`${field} is too large`);
  }
}

/**
 * Bodies read ahead of the route, by request: the idempotency check (apps/api/idempotency.ts) hashes a
 * multipart body's fields and file bytes before the handler runs, so the route's {@link readMultipart}
 * takes the same parts from here instead of the (already consumed) stream.
 */
const prefetched = new WeakMap<FastifyRequest, Promise<MultipartBody>>();

/**
 * Largest file a read-ahead keeps (bytes): above every route's own limit (10 MB PDFs and OCR files, a
 * PDF to verify with 256 KiB more), so the route still judges its own limit with its own error.
 */
export const PREFETCH_MAX_FILE_BYTES = 11 * 1024 * 1024;

/**
 * Reads a multipart/form-data body ahead of its route (files up to {@link PREFETCH_MAX_FILE_BYTES}) and
 * keeps it for the route's {@link readMultipart}.
 * @returns the parts, or null when the body cannot be read (too large, malformed): the route then answers
 *   that error itself, in its own words
 */
export async function prefetchMultipart(request: FastifyRequest): Promise<MultipartBody | null> {
  if (typeof request.isMultipart !== 'function' || !request.isMultipart()) return null;
  const body = collect(request, PREFETCH_MAX_FILE_BYTES);
  prefetched.set(request, body);
  return body.then(
    (b) => b,
    () => null,
  );
}

/** The parts of the body, each file read into memory up to `maxFileBytes`; raw errors of the stream are thrown. */
async function collect(request: FastifyRequest, maxFileBytes: number): Promise<MultipartBody> {
  const files = new Map<string, UploadedFile>();
  const fields = new Map<string, string[]>();
  for await (const part of request.parts({ limits: { fileSize: maxFileBytes } })) {
    if (part.type === 'file') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file) {
        size += (chunk as Buffer).length;
        if (size > maxFileBytes) throw new FileTooLarge(part.fieldname);
        chunks.push(chunk as Buffer);
      }
      if (part.file.truncated) throw new FileTooLarge(part.fieldname);
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
  return { files, fields };
}

/**
 * Streams a multipart/form-data body: each file is read into memory up to `maxFileBytes` and the
 * request is rejected with `tooLarge` the moment a file exceeds it, before the rest of the body is
 * buffered. The first file of a field wins; later files of the same field are drained and ignored.
 * A body read ahead ({@link prefetchMultipart}) is taken from there, with the same limits and errors.
 */
export async function readMultipart(request: FastifyRequest, spec: MultipartSpec): Promise<MultipartBody> {
  if (!request.isMultipart()) {
    throw spec.notMultipart?.() ?? new ApiError(400, 'invalid_request', 'Expected a multipart/form-data body');
  }
  try {
    const ahead = prefetched.get(request);
    if (!ahead) return await collect(request, spec.maxFileBytes);
    const body = await ahead;
    for (const file of body.files.values()) if (file.data.length > spec.maxFileBytes) throw new FileTooLarge(file.field);
    return body;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof FileTooLarge) throw spec.tooLarge(error.field);
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw spec.tooLarge('file');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new ApiError(400, 'invalid_request', 'Too many parts in the multipart body');
    }
    throw new ApiError(400, 'invalid_request', 'Malformed multipart/form-data body');
  }
}
