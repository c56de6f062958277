// The app's answers to what no route answered: an error thrown by a handler (closed set of codes) and an unknown route.
import type { ErrorHandler } from 'hono';
import type { Config } from '../config.ts';
import { AppError, errorResponse, toErrorBody } from '../errors.ts';
import { baseUrlOf } from '../oauth/resource.ts';
import { bearerChallenge } from './bearer-auth.ts';
import type { AppEnv } from './env.ts';

/** An AppError as its status and body; anything else is logged and answered `internal`, without its details. */
export function errorHandler(deps: {
  config: Config;
  logError: (requestId: string, error: unknown) => void;
}): ErrorHandler<AppEnv> {
  return (error, c) => {
    // A client that went away mid-body (e.g. cut off by the Node host's request timeout) is no server fault.
    const clientGone =
      c.req.raw.signal?.aborted ||
      (error instanceof Error &&
        error.message === 'aborted' &&
        (error as { code?: unknown }).code === 'ECONNRESET');
    if (!(error instanceof AppError) && !clientGone) deps.logError(c.get('requestId') ?? '-', error);
    const response = errorResponse(
      error instanceof AppError ? error : new AppError('internal', toErrorBody(error).error.message),
    );
    // RFC 6750 §3.1: the scope that would allow the call, so an OAuth client can ask for it.
    if (error instanceof AppError && error.code === 'insufficient_scope') {
      const base = baseUrlOf(deps.config, c.req.url);
      const challenge = { code: 'insufficient_scope', message: error.message, scope: 'read_write' };
      response.headers.set('www-authenticate', bearerChallenge(base, challenge));
    }
    return response;
  };
}

export function routeNotFound(): Response {
  return errorResponse(new AppError('not_found', 'No such route.'));
}
