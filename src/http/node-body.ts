// The Node host's reader of a request body: Node's own chunks, no copy, at most QUEUE_BYTES waiting for the route.
//
// @hono/node-server builds a request's body with Readable.toWeb(incoming), which copies every chunk (to detach it
// from Node's buffer pool; an HTTP body chunk is never pooled: Node's parser copies each one out of its read buffer).
// Its backpressure is sound on Node 20.20 (16 KB queued; it counted chunks, not bytes, before nodejs/node#48847), but
// the copies were not free: every chunk is an ArrayBuffer of its own, freed only when V8 collects it, which on an
// upload happens after about 32 MB of them, and the memory freed stays with the process. One copy per byte less is
// that much less garbage (README "Stored files").
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import type { RequestBodyPort } from './request-body.ts';

/** Bytes read from the socket and not yet taken by the route, beyond which the socket is paused (TCP pushes back). */
export const QUEUE_BYTES = 64 * 1024;

/**
 * The body of `incoming` as a web stream of Node's Buffers, pulled: the request is paused whenever QUEUE_BYTES wait
 * (Node then stops reading the socket), resumed when the route asks for more. Null when something already reads it.
 * Cancelling it leaves the rest unread, for the HTTP edge to drop after the answer (src/node.ts).
 */
export function nodeRequestBody(incoming: IncomingMessage): ReadableStream<Uint8Array> | null {
  if (incoming.destroyed || incoming.readableDidRead || incoming.listenerCount('data') > 0) return null;
  let controller: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer) => {
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
  };
  const stop = () => {
    incoming.off('data', onData);
    incoming.pause();
    cleanup();
  };
  const cleanup = finished(incoming, (error) => {
    stop();
    if (error) controller.error(error);
    else controller.close();
  });
  // Paused before the listener, so the body flows only when the stream pulls.
  incoming.pause();
  incoming.on('data', onData);
  return new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
      },
      pull() {
        incoming.resume();
      },
      cancel: stop,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: QUEUE_BYTES }),
  );
}

/** The port the Node host puts on a request's env: its body read by nodeRequestBody, the first time it is asked. */
export function nodeRequestBodyPort(incoming: IncomingMessage): Required<RequestBodyPort> {
  let asked = false;
  let body: ReadableStream<Uint8Array> | null = null;
  return {
    requestBody() {
      if (!asked) {
        asked = true;
        body = nodeRequestBody(incoming);
      }
      return body;
    },
  };
}
