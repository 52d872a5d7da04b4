/**
 * Base class of a bounded context's coded errors: each context keeps its closed table of codes and
 * HTTP statuses (e.g. `DEPLOYMENT_ERRORS`) and declares `class XError extends codedError('XError',
 * TABLE) {}`, so `instanceof` still tells the contexts apart while the shape is written once.
 *
 * @param name the error's `name` (shown in logs, never to clients)
 * @param statuses code → HTTP status, the context's closed list of codes
 * @returns a class whose instances carry `code`, `message`, `details` (default `{}`) and `status`
 */
export function codedError<Code extends string>(name: string, statuses: Readonly<Record<Code, number>>) {
  return class CodedError extends Error {
    override readonly name: string = name;
    constructor(
      readonly code: Code,
      message: string,
      readonly details: Record<string, unknown> = {},
    ) {
      super(message);
    }
    /** HTTP status of the code. */
    get status(): number {
      return statuses[this.code];
    }
  };
}
