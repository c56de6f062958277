// The Node host's webhook sender: every address DNS gives for the name is checked before connecting (as for OAuth
// client metadata), redirects are not followed, one deadline for the whole exchange, at most 64 KB of answer read.
import { lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkedLookup } from '../oauth/client-metadata-node.ts';
import { webhookUrlProblem } from './endpoints.ts';
import { WebhookSendError, type WebhookSender } from './send.ts';

/** A sender resolving names with `resolveName` (the system resolver; tests give their own answers). */
export const createNodeWebhookSender =
  (resolveName: typeof lookup = lookup): WebhookSender =>
  (request, limits) => {
    const problem = webhookUrlProblem(request.url, limits.allowLocal);
    if (problem) return Promise.reject(new WebhookSendError(problem));
    const url = new URL(request.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (outcome: { status: number } | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const outgoing = send(
        url,
        {
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          lookup: checkedLookup(
            limits.allowLocal,
            (reason) => new WebhookSendError(`The host name resolves to ${reason}, which is refused.`),
            resolveName,
          ),
          agent: false,
        },
        (response: IncomingMessage) => {
          const status = response.statusCode ?? 0;
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.byteLength;
            if (size > limits.maxResponseBytes) {
              // Enough read: the status is known, the rest is not waited for.
              settle({ status });
              outgoing.destroy();
            }
          });
          response.on('end', () => settle({ status }));
          response.on('error', () => settle({ status }));
        },
      );
      const deadline = setTimeout(
        () => outgoing.destroy(new WebhookSendError(`No answer within ${limits.timeoutMs / 1000} s.`)),
        limits.timeoutMs,
      );
      outgoing.on('error', (error) =>
        settle(
          error instanceof WebhookSendError
            ? error
            : new WebhookSendError(`The request failed: ${error.message}`),
        ),
      );
      outgoing.on('close', () => settle(new WebhookSendError('The connection closed without an answer.')));
      outgoing.end(request.body);
    });
  };

export const nodeWebhookSender: WebhookSender = createNodeWebhookSender();
