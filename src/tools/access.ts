// Organization access checks shared by every tool: token scope AND the holder's role in the organization.
import { roleIn, WRITER_ROLES } from '../auth/principal.ts';
import { AppError, notFound } from '../errors.ts';
import type { ToolContext, ToolScope } from './types.ts';

/**
 * Throws `insufficient_scope` when a read-only token calls a write tool, or a `propose` token one that cannot be
 * proposed (the invocation seam stores the others as proposals instead of running them).
 */
export function requireTokenScope(
  ctx: Pick<ToolContext, 'principal'>,
  scope: ToolScope,
  proposable = false,
): void {
  if (scope !== 'write' || ctx.principal.scope === 'read_write') return;
  if (ctx.principal.scope === 'propose') {
    if (proposable) return;
    throw new AppError(
      'insufficient_scope',
      'This token may only propose changes (scope "propose"), and this tool cannot be proposed: only adding, updating and deleting register records can. A person does it in the web interface.',
    );
  }
  throw new AppError(
    'insufficient_scope',
    'This token is read-only (scope "read"). Use a token with scope "read_write" to change records, or "propose" to propose changes a person approves.',
  );
}

/**
 * Checks that the caller reaches the organization (else the same not_found as a missing one, so nothing leaks)
 * and, for writes, that their role there may write.
 */
export function requireOrganization(
  ctx: ToolContext,
  organizationId: string,
  mode: ToolScope,
  what = 'Organization',
): void {
  const role = roleIn(ctx.principal, organizationId);
  if (!role) throw notFound(what);
  ctx.organizationId = organizationId;
  if (mode === 'write' && !WRITER_ROLES.has(role)) {
    throw new AppError(
      'insufficient_scope',
      `Your role in this organization is ${role}; changing records needs OWNER, ADMIN or EDITOR.`,
    );
  }
}

export function reachableOrganizationIds(ctx: ToolContext): string[] {
  return Object.keys(ctx.principal.roles);
}
