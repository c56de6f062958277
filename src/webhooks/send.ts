// Sending one webhook request, bounded: a deadline for the whole exchange, at most a few KB of the answer read, no
// redirect followed. The platform-fetch sender (the Worker's); the Node host's, which checks DNS answers, is send-node.ts.
import { webhookUrlProblem } from './endpoints.ts';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendLimits {
  /** The whole exchange: connecting, sending, the answer's headers and the part of its body read. */
  timeoutMs: number;
  /** At most this much of the answer's body is read; the rest is not waited for. */
  maxResponseBytes: number;
  /** Development only: http:// and loopback or private addresses are allowed. */
  allowLocal: boolean;
}

export const SEND_LIMITS = { timeoutMs: 10_000, maxResponseBytes: 64 * 1024 } as const;

/** A delivery that got no HTTP answer (refused address, timeout, connection error); the message says which. */
export class WebhookSendError extends Error {}

/** Sends one request and answers the response's status; throws WebhookSendError when there is none. */
export type WebhookSender = (request: WebhookRequest, limits: SendLimits) => Promise<{ status: number }>;

/** Reads at most `maxBytes` of a body, then cancels the rest. */
async function drainCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let size = 0;
  while (size <= maxBytes) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
}

/**
 * The sender over the platform's `fetch` (the Worker's): redirects are answered as they are (a 3xx is a failed
 * delivery), never followed. Without DNS it refuses literal addresses and local names only (docs/worker.md).
 */
export const fetchWebhookSender: WebhookSender = async (request, limits) => {
  const problem = webhookUrlProblem(request.url, limits.allowLocal);
  if (problem) throw new WebhookSendError(problem);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal,
    });
    await drainCapped(response.body, limits.maxResponseBytes).catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    throw new WebhookSendError(
      signal.aborted
        ? `No answer within ${limits.timeoutMs / 1000} s.`
        : `The request failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
};
