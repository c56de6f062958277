// The closed set of error codes of the public contract, and the AppError that carries one.

export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_arguments: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  unknown_tool: 404,
  invalid_transition: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get status(): (typeof ERROR_STATUS)[ErrorCode] {
    return ERROR_STATUS[this.code];
  }
}

/** The body every surface sends for an error; anything that is not an AppError becomes `internal`. */
export function toErrorBody(error: unknown): ErrorBody {
  const appError = asAppError(error);
  const body: ErrorBody = { error: { code: appError.code, message: appError.message } };
  if (appError.details !== undefined) body.error.details = appError.details;
  return body;
}

export function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError(
    'internal',
    'Internal error. The incident was logged; retry later or contact the operator.',
  );
}

/** The `Retry-After` of a rate_limited error (seconds), if it has one. */
export function retryAfterOf(error: AppError): string | undefined {
  const details = error.details as { retry_after_seconds?: number } | undefined;
  return error.code === 'rate_limited' && details?.retry_after_seconds
    ? String(details.retry_after_seconds)
    : undefined;
}

/** A direct-call error answer: the error's status and body, with `Retry-After` when rate limited. */
export function errorResponse(error: AppError): Response {
  const headers = new Headers({ 'content-type': 'application/json' });
  const retryAfter = retryAfterOf(error);
  if (retryAfter) headers.set('retry-after', retryAfter);
  return new Response(JSON.stringify(toErrorBody(error)), { status: error.status, headers });
}

/** The 413 of every host: a body larger than MAX_BODY_BYTES, announced or counted. */
export function payloadTooLarge(maxBodyBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The body is larger than ${maxBodyBytes} bytes (MAX_BODY_BYTES); send a smaller request.`,
  );
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found, or not reachable with this token.`);
}

export function invalidArguments(message: string, details?: ErrorDetail[]): AppError {
  return new AppError('invalid_arguments', message, details);
}

/**
 * One line for the operator's log: the error's name, code and message, without the query parameters drizzle puts in
 * its messages (they can hold password hashes, CSRF tokens or session hashes) and without a stack.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 4; depth++) {
    if (!(cause instanceof Error)) {
      parts.push(String(cause));
      break;
    }
    const code = (cause as { code?: unknown }).code;
    const message = cause.message.split(/\n[^\S\n]*params:/)[0] ?? '';
    parts.push(`${cause.name}${typeof code === 'string' ? ` ${code}` : ''}: ${message}`);
    cause = cause.cause;
  }
  return parts.join(' <- ');
}

/**
 * Writes an unexpected error of a request to the operator's log: describeError and the stack's frames, but not the
 * stack's first line (drizzle's messages carry query parameters: hashes, CSRF tokens).
 */
export function internalErrorLogger(
  log: (message: string) => void,
): (requestId: string, error: unknown) => void {
  return (requestId, error) => {
    const frames =
      error instanceof Error ? (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)) : [];
    log(
      `[${requestId}] internal error: ${describeError(error)}${frames.length ? `\n${frames.slice(0, 8).join('\n')}` : ''}`,
    );
  };
}
