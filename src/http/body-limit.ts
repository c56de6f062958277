// Bodies over MAX_BODY_BYTES: refused on their announced length before anything reads them, else counted as read.
import type { Context, Env, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse, payloadTooLarge } from '../errors.ts';

/** A Content-Length above the limit (a chunked body has none; it is counted as it is read, by `limitBody`). */
export function announcedTooLarge(contentLength: string | undefined | null, maxBodyBytes: number): boolean {
  return contentLength != null && /^\s*\d+\s*$/.test(contentLength) && Number(contentLength) > maxBodyBytes;
}

/** Refuses an announced length over the limit before anything reads the body or asks the database about the token. */
export function refuseAnnouncedTooLarge(maxBodyBytes: number): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.header('transfer-encoding') && announcedTooLarge(c.req.header('content-length'), maxBodyBytes))
      return errorResponse(payloadTooLarge(maxBodyBytes));
    await next();
  };
}

/**
 * Counts the body as the handler reads it and answers 413 (`tooLarge`, the JSON error unless given) once it passes
 * the limit. A body with a Content-Length (and no Transfer-Encoding) is decided on that length alone, as hono's
 * bodyLimit decides it, but without asking for the request's body stream: on @hono/node-server that would build a
 * full Request (and its abort signal) per call, and a body streamed by the route (src/http/request-body.ts) must be
 * left to the route's reader.
 */
export function limitBody<E extends Env = Env>(
  maxBodyBytes: number,
  tooLarge: (c: Context<E>) => Response | Promise<Response> = () =>
    errorResponse(payloadTooLarge(maxBodyBytes)),
): MiddlewareHandler<E> {
  const counted = bodyLimit({ maxSize: maxBodyBytes, onError: (c) => tooLarge(c as Context<E>) });
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && !c.req.header('transfer-encoding')) {
      if (Number.parseInt(length, 10) > maxBodyBytes) return tooLarge(c);
      return next();
    }
    return counted(c, next);
  };
}
