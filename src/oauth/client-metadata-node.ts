// The Node host's client metadata fetcher: checks every address DNS returns for the name before connecting to it.
import { type LookupAddress, lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { refusedAddress } from './addresses.ts';
import {
  ClientMetadataError,
  type ClientMetadataFetcher,
  clientIdUrlProblem,
  maxAgeOf,
} from './client-metadata.ts';

/** A DNS lookup that refuses names resolving to loopback, private, link-local or reserved addresses (`refusal` says so). */
export function checkedLookup(
  allowLocal: boolean,
  refusal: (reason: string) => Error = (reason) =>
    new ClientMetadataError(`The client_id host resolves to ${reason}.`),
  resolve: typeof lookup = lookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = allowLocal
        ? null
        : addresses.map((entry) => refusedAddress(entry.address)).find(Boolean);
      if (refused || addresses.length === 0) {
        const problem = refusal(refused ?? 'no address');
        return callback(problem as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export const nodeClientMetadataFetcher: ClientMetadataFetcher = (url, limits) => {
  const problem = clientIdUrlProblem(url.href, limits.allowLocal);
  if (problem) return Promise.reject(new ClientMetadataError(problem));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(
        error instanceof ClientMetadataError
          ? error
          : new ClientMetadataError('The client metadata document could not be fetched.'),
      );
    const request = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: checkedLookup(limits.allowLocal),
        timeout: limits.timeoutMs,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          resolve({ status, body: '', maxAgeSeconds: null });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > limits.maxBytes) {
            // Settle first: destroying the socket also ends the response, which must not resolve a partial body.
            fail(
              new ClientMetadataError(
                `The client metadata document is larger than ${limits.maxBytes} bytes.`,
              ),
            );
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status,
            body: Buffer.concat(chunks).toString('utf8'),
            maxAgeSeconds: maxAgeOf(response.headers['cache-control'] ?? null),
          }),
        );
        response.on('error', fail);
      },
    );
    // One deadline for the whole exchange, not only for idle sockets.
    const deadline = setTimeout(
      () =>
        request.destroy(
          new ClientMetadataError(
            `The client metadata document did not arrive within ${limits.timeoutMs} ms.`,
          ),
        ),
      limits.timeoutMs,
    );
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () =>
      request.destroy(new ClientMetadataError('The client metadata request timed out.')),
    );
    request.on('error', fail);
    request.end();
  });
};
