// Who is calling: the token holder, the token's scope and the organizations (with roles) it can reach.

export type Role = 'OWNER' | 'ADMIN' | 'EDITOR' | 'VIEWER';
export const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'];
export type TokenScope = 'read' | 'read_write';
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
