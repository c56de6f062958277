// Every answer carries x-request-id: the id the log writes beside an internal error of that request.
import type { MiddlewareHandler } from 'hono';
import { randomBase32 } from '../ids.ts';
import type { AppEnv } from './env.ts';

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = randomBase32(12);
    c.set('requestId', id);
    await next();
    c.res.headers.set('x-request-id', id);
  };
}
