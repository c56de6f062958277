// A request's body as the route reads it: the host's own reader when it gives one (the Node host, src/http/node-body.ts),
// else the Request's body (the Worker, tests through app.request).
import type { Context } from 'hono';

/** What a host may put on a request's env: its reader of the body, null when someone else has read it first. */
export interface RequestBodyPort {
  requestBody?: () => ReadableStream<Uint8Array> | null;
}

/** The body of a request, to be read once, as a stream (null when it has none). */
export function requestBody(c: Context): ReadableStream<Uint8Array> | null {
  return (c.env as RequestBodyPort | undefined)?.requestBody?.() ?? c.req.raw.body;
}
