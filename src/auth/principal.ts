// Who is calling: the token holder, the token's scope and the organizations (with roles) it can reach.

export type Role = 'OWNER' | 'ADMIN' | 'EDITOR' | 'VIEWER';
export const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'];
/** read: list and get; propose: writes are stored as proposals a person approves in the web; read_write: writes. */
export type TokenScope = 'read' | 'propose' | 'read_write';
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'propose', 'read_write'];

/** How the web shows a scope. */
export const SCOPE_LABELS: Readonly<Record<TokenScope, string>> = {
  read: 'read',
  propose: 'propose (approved in the web)',
  read_write: 'read & write',
};

/** A scope named in a form, a CLI flag or a cache entry, if it is one. */
export function tokenScopeOf(value: unknown): TokenScope | null {
  return TOKEN_SCOPES.find((scope) => scope === value) ?? null;
}
export const WRITER_ROLES: ReadonlySet<Role> = new Set(['OWNER', 'ADMIN', 'EDITOR']);

/** What authorization needs, cached per token hash (JSON-serializable so KV can hold it). */
export interface Principal {
  tokenId: string;
  userId: string;
  scope: TokenScope;
  /** Organization id -> the holder's role there, already narrowed to the token's organization restriction. */
  roles: Record<string, Role>;
  /** ISO time after which the token is refused; null = never expires. */
  expiresAt: string | null;
  /** The holder's time zone (IANA), which decides "today" for due and overdue; absent = UTC. */
  timeZone?: string;
  /** OAuth access tokens only: the resource (RFC 8707) the token was issued for; it is refused elsewhere. */
  audience?: string;
}

export function roleIn(principal: Principal, organizationId: string): Role | undefined {
  return Object.hasOwn(principal.roles, organizationId) ? principal.roles[organizationId] : undefined;
}
