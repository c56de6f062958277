// The OAuth services the app builds once: the client registry, the grant service, and who a request comes from.
import type { TokenService } from '../auth/tokens.ts';
import type { Db } from '../db/client.ts';
import { type ClientAddressOf, clientAddressKey } from '../http/client-address.ts';
import type { ClientMetadataFetcher } from './client-metadata.ts';
import { type ClientRegistry, createClientRegistry, type RequestOrigin } from './clients.ts';
import { createGrantService, type GrantService } from './grants.ts';

export interface OAuthServices {
  clients: ClientRegistry;
  grants: GrantService;
  /** The client address (its limit key) of a request, as the host tells it. */
  originOf(request: Request, env: unknown): RequestOrigin;
}

export function createOAuthServices(deps: {
  db: Db;
  tokens: TokenService;
  now: () => Date;
  fetcher: ClientMetadataFetcher;
  allowLocalClientMetadata: boolean;
  clientAddress: ClientAddressOf;
}): OAuthServices {
  return {
    clients: createClientRegistry(deps),
    grants: createGrantService(deps),
    originOf: (request, env) => ({ addressKey: clientAddressKey(deps.clientAddress(request, env)) }),
  };
}
