// Who may do what in the web: the viewer's membership of the organization in the URL, whether that role writes,
// and the page that says no. Every page group reads access through this module.
import type { Context } from 'hono';
import { WRITER_ROLES } from '../auth/principal.ts';
import type { Membership, WebEnv } from './context.ts';
import type { Section } from './layout.tsx';
import { errorPage } from './render.tsx';
import { viewerOf } from './viewer.ts';

/** The viewer's membership of the organization in the URL; undefined (so a 404) for any other organization. */
export function membershipOf(c: Context<WebEnv>, organizationId: string): Membership | undefined {
  return c.get('memberships').find((membership) => membership.organizationId === organizationId);
}

/** Whether the member's role may change records (OWNER, ADMIN, EDITOR). */
export function mayWrite(membership: Membership): boolean {
  return WRITER_ROLES.has(membership.role);
}

/**
 * The 403 page for a member who may not write: "Your role in Acme is VIEWER", and with `needs` (what was tried,
 * "importing records") "...; importing records needs OWNER, ADMIN or EDITOR."
 */
export function notAllowedPage(
  c: Context<WebEnv>,
  membership: Membership,
  needs?: string,
  section?: Section,
): Response | Promise<Response> {
  const role = `Your role in ${membership.name} is ${membership.role}`;
  const message = needs ? `${role}; ${needs} needs OWNER, ADMIN or EDITOR.` : `${role}.`;
  return errorPage(c, 403, 'Not allowed', message, viewerOf(c), section);
}
