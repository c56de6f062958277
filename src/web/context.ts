// What the web routes receive (dependencies) and what each request carries (the signed-in user and session).
import type { Context } from 'hono';
import type { Principal, Role, TokenScope } from '../auth/principal.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { ClientAddressOf } from '../http/client-address.ts';
import type { AccountMail } from '../notify/account-mail.ts';
import type { OAuthServices } from '../oauth/index.ts';
import type { SecretKeyring } from '../secrets/keyring.ts';
import type { InvokeDeps } from '../surfaces/invoke.ts';
import type { ToolMap } from '../tools/index.ts';
import type { UsageRecorder } from '../usage.ts';

export interface WebDeps {
  config: Config;
  database: { db: Db };
  tokens: TokenService;
  usage: UsageRecorder;
  tools: ToolMap;
  invoke: InvokeDeps;
  now: () => Date;
  usageFlush?: 'after-response' | 'host';
  oauth: OAuthServices;
  accountMail: AccountMail;
  /** The client's address as the host reads it (the sign-up, reset and sign-in throttles count per network). */
  clientAddress: ClientAddressOf;
  /** Webhook signing secrets are sealed with it (src/webhooks/secrets.ts). */
  secrets: SecretKeyring;
}

export interface SignedInUser {
  id: string;
  email: string;
  name: string | null;
  /** IANA time zone of the account (null = UTC): pages show due and overdue as of the reader's today. */
  timeZone?: string | null;
  /** The account showed it receives mail at `email` (docs/security.md); until then it cannot accept invitations. */
  emailVerified?: boolean;
}

export interface Membership {
  organizationId: string;
  name: string;
  role: Role;
}

export interface WebSession {
  idHash: string;
  csrfToken: string;
}

export type WebEnv = {
  Variables: {
    requestId: string;
    user: SignedInUser;
    session: WebSession;
    memberships: Membership[];
    /** The account's unread in-app notifications (the top bar's count). */
    unread: number;
    /** A message from the previous request (post/redirect/get), shown once. */
    flash?: string;
    /** A multipart upload's CSRF token: left to the route (src/web/uploads.ts), then checked by it. */
    uploadCsrf?: 'pending' | 'checked';
  };
};

export type WebContext = Context<WebEnv>;

/** The signed-in user as a tool caller: read scope over every organization they belong to. */
export function webPrincipal(user: SignedInUser, memberships: Membership[]): Principal {
  return webPrincipalWithScope(user, memberships, 'read');
}

/**
 * The signed-in user as a tool caller that may write: the rights are exactly their role in each organization
 * (the tools refuse a VIEWER's write with insufficient_scope, as for an API token).
 */
export function webWriterPrincipal(user: SignedInUser, memberships: Membership[]): Principal {
  return webPrincipalWithScope(user, memberships, 'read_write');
}

/** Not an API token: web calls are logged (surface "web") and uploads counted under this pseudo token id, per user. */
export function webTokenId(user: SignedInUser): string {
  return `web:${user.id}`;
}

function webPrincipalWithScope(user: SignedInUser, memberships: Membership[], scope: TokenScope): Principal {
  return {
    tokenId: webTokenId(user),
    userId: user.id,
    scope,
    roles: Object.fromEntries(memberships.map((membership) => [membership.organizationId, membership.role])),
    expiresAt: null,
    ...(user.timeZone ? { timeZone: user.timeZone } : {}),
  };
}

export const MANAGER_ROLES: ReadonlySet<Role> = new Set(['OWNER', 'ADMIN']);
