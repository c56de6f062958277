// The OAuth services the app builds once: the client registry and the grant service.
import type { TokenService } from '../auth/tokens.ts';
import type { Db } from '../db/client.ts';
import type { ClientMetadataFetcher } from './client-metadata.ts';
import { type ClientRegistry, createClientRegistry } from './clients.ts';
import { createGrantService, type GrantService } from './grants.ts';

export interface OAuthServices {
  clients: ClientRegistry;
  grants: GrantService;
}

export function createOAuthServices(deps: {
  db: Db;
  tokens: TokenService;
  now: () => Date;
  fetcher: ClientMetadataFetcher;
  allowLocalClientMetadata: boolean;
}): OAuthServices {
  return {
    clients: createClientRegistry(deps),
    grants: createGrantService(deps),
  };
}
