// Organizations: the switcher, creating one, members (OWNER/ADMIN manage them) and the activity page.

import { type Context, Hono } from 'hono';
import {
  changeRole,
  createOrganization,
  MEMBERSHIP_CHANGED_MEANWHILE,
  removeMembership,
} from '../../accounts.ts';
import { ROLES, type Role } from '../../auth/principal.ts';
import { AppError } from '../../errors.ts';
import {
  INVITATION_DAYS,
  type InvitationView,
  invitationPath,
  invitationsFor,
  invite,
  listOrganizationInvitations,
  withdrawInvitation,
} from '../../invitations.ts';
import { membershipOf } from '../access.ts';
import { activitySince, CallsPerDay, RecentCalls } from '../activity.tsx';
import { ConfirmPage } from '../confirm-page.tsx';
import { MANAGER_ROLES, type Membership, type WebDeps, type WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { invitationEmail } from '../emails.ts';
import { setFlash } from '../flash.ts';
import { Input, Select, text } from '../forms.tsx';
import { Badge, CsrfField, Layout, Notice, Time, type Viewer } from '../layout.tsx';
import { callActivity, listMembers, type MemberRow } from '../queries.ts';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { attemptWaitSeconds, INVITATION_LIMIT, invitationKey, minutes, reserveAttempt } from '../throttle.ts';
import { viewerOf } from '../viewer.ts';

const INVITATION_DAYS_TEXT = `${INVITATION_DAYS} days`;

const ROLE_HELP: Record<Role, string> = {
  OWNER: 'everything, including managing owners',
  ADMIN: 'manage members (not owners) and see activity',
  EDITOR: 'read and change records',
  VIEWER: 'read records',
};

function NoOrganizationPage({ viewer, invitations }: { viewer: Viewer; invitations: number }) {
  return (
    <Layout title="Welcome" viewer={viewer}>
      <div class="narrow">
        <div class="card">
          <h1>Welcome{viewer.user.name ? `, ${viewer.user.name}` : ''}</h1>
          <p>You are not a member of any organization yet.</p>
          {invitations > 0 && (
            <Notice kind="ok">
              {invitations === 1 ? 'An invitation is' : `${invitations} invitations are`} waiting for you:{' '}
              <a href="/invitations">answer on the Invitations page</a>.
            </Notice>
          )}
          <ul>
            <li>
              To join an existing one, ask one of its owners or admins to invite{' '}
              <strong>{viewer.user.email}</strong> from its Members page, then accept on your{' '}
              <a href="/invitations">Invitations</a> page.
            </li>
            <li>
              Or <a href="/orgs/new">create a new organization</a>; you will be its owner.
            </li>
          </ul>
        </div>
      </div>
    </Layout>
  );
}

function NewOrganizationPage({ viewer, name, error }: { viewer: Viewer; name?: string; error?: string }) {
  return (
    <Layout title="New organization" viewer={viewer}>
      <div class="narrow">
        <div class="card">
          <h1>New organization</h1>
          <p class="lead">You become its owner. Its registers start empty.</p>
          {error && <Notice kind="error">{error}</Notice>}
          <form method="post" action="/orgs">
            <CsrfField token={viewer.csrfToken} />
            <Input id="org-name" name="name" label="Name" value={name} required limit={200} autofocus />
            <Input id="org-description" name="description" label="Description (optional)" limit={2000} />
            <div class="actions">
              <button type="submit">Create organization</button>
              <a href="/">Cancel</a>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

const MEMBER_NOTICES: Record<string, string> = {
  role: 'The role was changed.',
  removed: 'The member was removed.',
  withdrawn: 'The invitation was withdrawn.',
};

/** Which roles the viewer may hand out. */
function grantableRoles(viewerRole: Role): readonly Role[] {
  return viewerRole === 'OWNER' ? ROLES : ROLES.filter((role) => role !== 'OWNER');
}

/** The roles of the members the viewer may change or remove: an OWNER any, an ADMIN all but OWNER, others none. */
function managedRoles(viewerRole: Role): readonly Role[] {
  return MANAGER_ROLES.has(viewerRole) ? grantableRoles(viewerRole) : [];
}

function mayManage(viewerRole: Role, member: MemberRow): boolean {
  return managedRoles(viewerRole).includes(member.role);
}

function MembersPage(props: {
  viewer: Viewer;
  membership: Membership;
  members: MemberRow[];
  invitations: InvitationView[];
  mailConfigured: boolean;
  now: string;
  notice?: string | undefined;
  error?: string | undefined;
  addEmail?: string;
  addRole?: Role;
}) {
  const { membership, viewer } = props;
  const manager = MANAGER_ROLES.has(membership.role);
  const base = `/orgs/${membership.organizationId}/members`;
  const roleOptions = grantableRoles(membership.role).map((role) => ({ value: role, label: role }));
  return (
    <Layout
      title={`Members · ${membership.name}`}
      viewer={viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'members' }}
    >
      <h1>Members</h1>
      <p class="lead">
        Roles: {ROLES.map((role) => `${role} (${ROLE_HELP[role]})`).join('; ')}. An API token never has more
        rights than its holder’s role.
      </p>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <DataTable
        items={props.members}
        empty="No members."
        columns={[
          {
            header: 'Member',
            cell: (member) => (
              <>
                {member.name ? (
                  <>
                    {member.name}
                    <br />
                    <span class="small muted">{member.email}</span>
                  </>
                ) : (
                  member.email
                )}
                {member.userId === viewer.user.id && <span class="small muted"> (you)</span>}
              </>
            ),
          },
          {
            header: 'Role',
            cell: (member) => <Badge tone={member.role === 'OWNER' ? 'ok' : undefined}>{member.role}</Badge>,
          },
          { header: 'Since', cell: (member) => <Time iso={member.since} /> },
          ...(manager
            ? [
                {
                  header: 'Manage',
                  cell: (member: MemberRow) =>
                    mayManage(membership.role, member) ? (
                      <div class="inline-form">
                        <form method="post" action={`${base}/${member.userId}/role`} class="inline-form">
                          <CsrfField token={viewer.csrfToken} />
                          {/* The role shown: if it changed meanwhile, the change is refused instead of applied. */}
                          <input type="hidden" name="current_role" value={member.role} />
                          <label class="visually-hidden" for={`role-${member.userId}`}>
                            Role of {member.email}
                          </label>
                          <select id={`role-${member.userId}`} name="role">
                            {roleOptions.map((option) => (
                              <option value={option.value} selected={option.value === member.role}>
                                {option.label}
                              </option>
                            ))}
                          </select>
                          <button type="submit" class="button small quiet">
                            Change role
                          </button>
                        </form>
                        <a href={`${base}/${member.userId}/remove`} aria-label={`Remove ${member.email}`}>
                          Remove
                        </a>
                      </div>
                    ) : (
                      <span class="small muted">Only an owner can change an owner.</span>
                    ),
                },
              ]
            : []),
        ]}
      />
      {manager && props.invitations.length > 0 && (
        <section aria-labelledby="pending-invitations">
          <h2 id="pending-invitations">Invitations</h2>
          <DataTable
            items={props.invitations}
            empty="No invitations."
            columns={[
              { header: 'Address', cell: (invitation) => invitation.email },
              { header: 'Role', cell: (invitation) => <Badge>{invitation.role}</Badge> },
              { header: 'Invited by', cell: (invitation) => invitation.invitedBy },
              {
                header: 'Open until',
                cell: (invitation) =>
                  invitation.expiresAt <= props.now ? (
                    <Badge tone="warn">expired</Badge>
                  ) : (
                    <Time iso={invitation.expiresAt} />
                  ),
              },
              {
                header: 'Manage',
                cell: (invitation) => (
                  <div class="inline-form">
                    {grantableRoles(membership.role).includes(invitation.role) && (
                      <form method="post" action={base} class="inline-form">
                        <CsrfField token={viewer.csrfToken} />
                        <input type="hidden" name="email" value={invitation.email} />
                        <input type="hidden" name="role" value={invitation.role} />
                        <button
                          type="submit"
                          class="button small quiet"
                          aria-label={`Send again to ${invitation.email}`}
                        >
                          Send again
                        </button>
                      </form>
                    )}
                    <form
                      method="post"
                      action={`/orgs/${membership.organizationId}/invitations/${invitation.id}/withdraw`}
                      class="inline-form"
                    >
                      <CsrfField token={viewer.csrfToken} />
                      <button
                        type="submit"
                        class="button small quiet"
                        aria-label={`Withdraw the invitation of ${invitation.email}`}
                      >
                        Withdraw
                      </button>
                    </form>
                  </div>
                ),
              },
            ]}
          />
        </section>
      )}
      {manager ? (
        <section aria-labelledby="add-member">
          <h2 id="add-member">Invite someone</h2>
          <div class="card">
            <p class="small muted">
              Nobody joins without accepting.{' '}
              {props.mailConfigured
                ? 'They get an email with a link; '
                : 'This instance sends no email: tell them to sign in (or sign up) with this address; '}
              the invitation also waits on their Invitations page for {INVITATION_DAYS_TEXT}.
            </p>
            <form method="post" action={base}>
              <CsrfField token={viewer.csrfToken} />
              <div class="row">
                <Input
                  id="member-email"
                  name="email"
                  label="Email"
                  type="email"
                  value={props.addEmail}
                  required
                />
                <Select
                  id="member-role"
                  name="role"
                  label="Role"
                  options={roleOptions}
                  value={props.addRole ?? 'VIEWER'}
                />
                <div class="field">
                  <button type="submit">Send invitation</button>
                </div>
              </div>
            </form>
          </div>
        </section>
      ) : (
        <p class="muted">Only owners and admins can invite or change members.</p>
      )}
      <section aria-labelledby="leave">
        <h2 id="leave">Leave {membership.name}</h2>
        <p>
          <a href={`/orgs/${membership.organizationId}/leave`}>Leave this organization</a>
          <span class="small muted"> (the last owner cannot: make someone else owner first)</span>
        </p>
      </section>
    </Layout>
  );
}

/** The confirmation before someone loses the organization (removed by a manager, or leaving). */
function MembershipEndPage(props: {
  viewer: Viewer;
  membership: Membership;
  title: string;
  heading: string;
  explanation: string;
  action: string;
  button: string;
}) {
  const { membership } = props;
  return (
    <ConfirmPage
      viewer={props.viewer}
      title={props.title}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'members' }}
      heading={props.heading}
      action={props.action}
      button={props.button}
      cancelHref={`/orgs/${membership.organizationId}/members`}
    >
      <p>{props.explanation}</p>
    </ConfirmPage>
  );
}

function RemoveMemberPage(props: { viewer: Viewer; membership: Membership; member: MemberRow }) {
  const { membership, member } = props;
  const self = member.userId === props.viewer.user.id;
  return (
    <MembershipEndPage
      viewer={props.viewer}
      membership={membership}
      title="Remove member"
      heading={`Remove ${self ? 'yourself' : member.email} from ${membership.name}?`}
      explanation={`${self ? 'You' : 'They'} lose access to this organization at once, through the web and through every API token; webhook endpoints ${self ? 'you' : 'they'} added to it are paused until an owner or admin turns them back on.`}
      action={`/orgs/${membership.organizationId}/members/${member.userId}/remove`}
      button="Remove"
    />
  );
}

function LeavePage(props: { viewer: Viewer; membership: Membership }) {
  const { membership } = props;
  return (
    <MembershipEndPage
      viewer={props.viewer}
      membership={membership}
      title="Leave organization"
      heading={`Leave ${membership.name}?`}
      explanation="You lose access to it at once, through the web and every API token; webhook endpoints you added to it are paused until an owner or admin turns them back on. To come back you need a new invitation."
      action={`/orgs/${membership.organizationId}/leave`}
      button="Leave"
    />
  );
}

function ActivityPage(props: {
  viewer: Viewer;
  membership: Membership;
  now: Date;
  activity: Awaited<ReturnType<typeof callActivity>>;
}) {
  return (
    <Layout
      title={`Activity · ${props.membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: props.membership.organizationId, page: 'activity' }}
    >
      <h1>Activity</h1>
      <p class="lead">
        Tool calls in {props.membership.name} by every member, through API tokens and the web.
      </p>
      <CallsPerDay
        perDay={props.activity.perDay}
        now={props.now}
        label={`Calls in ${props.membership.name}`}
      />
      <h2>Recent calls</h2>
      <RecentCalls calls={props.activity.recent} total={props.activity.total} show={{ token: true }} />
    </Layout>
  );
}

function parseRole(value: string): Role | undefined {
  return (ROLES as readonly string[]).includes(value) ? (value as Role) : undefined;
}

export function organizationRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;

  web.get('/orgs', async (c) => {
    const [first] = c.get('memberships');
    if (first) return c.redirect(`/orgs/${first.organizationId}`, 303);
    const invitations = await invitationsFor(db, c.get('user').email, deps.now());
    return sendPage(c, <NoOrganizationPage viewer={viewerOf(c)} invitations={invitations.length} />);
  });

  web.get('/orgs/new', (c) => sendPage(c, <NewOrganizationPage viewer={viewerOf(c)} />));

  web.post('/orgs', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const name = text(body, 'name').trim();
    const user = c.get('user');
    try {
      const organization = await createOrganization(db, deps.now(), {
        name,
        description: text(body, 'description'),
        ownerId: user.id,
      });
      // Tokens for "all organizations" reach the new one once their cached principal is dropped.
      await deps.tokens.invalidateUser(user.id);
      return c.redirect(`/orgs/${organization.id}`, 303);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_arguments') {
        return sendPage(
          c,
          <NewOrganizationPage viewer={viewerOf(c)} name={name} error={error.message} />,
          422,
        );
      }
      throw error;
    }
  });

  web.get('/orgs/switch', (c) => {
    const membership = membershipOf(c, c.req.query('organization_id') ?? '');
    if (!membership) return c.redirect('/orgs', 303);
    return c.redirect(`/orgs/${membership.organizationId}`, 303);
  });

  async function membersPage(
    c: Context<WebEnv>,
    membership: Membership,
    status: 200 | 403 | 404 | 409 | 422 | 429,
    extra: { notice?: string; error?: string; addEmail?: string; addRole?: Role } = {},
  ) {
    const [members, invitations] = await Promise.all([
      listMembers(db, membership.organizationId),
      MANAGER_ROLES.has(membership.role) ? listOrganizationInvitations(db, membership.organizationId) : [],
    ]);
    return sendPage(
      c,
      <MembersPage
        viewer={viewerOf(c)}
        membership={membership}
        members={members}
        invitations={invitations}
        mailConfigured={deps.accountMail.configured}
        now={deps.now().toISOString()}
        {...extra}
      />,
      status,
    );
  }

  web.get('/orgs/:org/members', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    return membersPage(c, membership, 200, { notice: MEMBER_NOTICES[c.req.query('done') ?? ''] });
  });

  web.post('/orgs/:org/members', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!MANAGER_ROLES.has(membership.role)) {
      return membersPage(c, membership, 403, { error: 'Only owners and admins can add members.' });
    }
    const body = await c.req.parseBody({ all: true });
    const email = text(body, 'email').trim();
    const role = parseRole(text(body, 'role'));
    const fail = (status: 403 | 409 | 422 | 429, error: string) =>
      membersPage(c, membership, status, { error, addEmail: email, ...(role ? { addRole: role } : {}) });
    if (!role) return fail(422, 'Choose a role.');
    if (!grantableRoles(membership.role).includes(role))
      return fail(403, 'Only an owner can make someone an owner.');
    const user = c.get('user');
    const now = deps.now();
    // Every invitation counts against the inviter's allowance (each may send an email), whatever its outcome.
    const key = invitationKey(user.id);
    if ((await reserveAttempt(db, key, INVITATION_LIMIT, now)) === undefined) {
      const wait = await attemptWaitSeconds(db, key, INVITATION_LIMIT, now);
      c.header('retry-after', String(wait));
      return fail(
        429,
        `You sent ${INVITATION_LIMIT.max} invitations within the hour. Try again in ${minutes(wait)}.`,
      );
    }
    let sent: Awaited<ReturnType<typeof invite>>;
    try {
      // The same answer whether or not the address has an account here: nothing says which.
      sent = await invite(db, now, {
        organizationId: membership.organizationId,
        email,
        role,
        invitedBy: user.id,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict')
        return fail(409, `${error.message} Change their role in the table instead.`);
      if (error instanceof AppError && error.code === 'invalid_arguments') return fail(422, error.message);
      throw error;
    }
    deps.accountMail.send(
      c,
      invitationEmail(
        sent.email,
        {
          organizationName: membership.name,
          invitedBy: user.name ?? user.email,
          role,
          expiresAt: sent.expiresAt,
        },
        deps.accountMail.url(c, invitationPath(sent.secret)),
      ),
    );
    setFlash(
      c,
      `Invitation sent to ${sent.email} as ${role}. They join when they accept it${deps.accountMail.configured ? ' (by the link in the email, or on their Invitations page)' : ' on their Invitations page, after signing in with that address'}.`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/members`, 303);
  });

  web.post('/orgs/:org/invitations/:id/withdraw', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!MANAGER_ROLES.has(membership.role))
      return membersPage(c, membership, 403, { error: 'Only owners and admins can withdraw invitations.' });
    if (!(await withdrawInvitation(db, membership.organizationId, c.req.param('id'))))
      return membersPage(c, membership, 404, {
        error: 'This invitation is no longer open: it was accepted, declined or withdrawn meanwhile.',
      });
    return c.redirect(`/orgs/${membership.organizationId}/members?done=withdrawn`, 303);
  });

  web.get('/orgs/:org/leave', (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    return sendPage(c, <LeavePage viewer={viewerOf(c)} membership={membership} />);
  });

  web.post('/orgs/:org/leave', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const user = c.get('user');
    try {
      // Any role may leave; the statement keeps the last OWNER (an organization never ends up without one).
      await removeMembership(db, deps.now(), membership.organizationId, user.id);
    } catch (error) {
      if (error instanceof AppError && (error.code === 'conflict' || error.code === 'not_found'))
        return membersPage(c, membership, error.code === 'conflict' ? 409 : 404, { error: error.message });
      throw error;
    }
    await deps.tokens.invalidateUser(user.id);
    setFlash(c, `You left ${membership.name}.`);
    const other = c.get('memberships').find((each) => each.organizationId !== membership.organizationId);
    return c.redirect(other ? `/orgs/${other.organizationId}` : '/orgs', 303);
  });

  /** The member named in the URL, if the viewer may manage them; otherwise the response to send. */
  async function managedMember(
    c: Context<WebEnv>,
  ): Promise<{ membership: Membership; member: MemberRow } | Response> {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const member = (await listMembers(db, membership.organizationId)).find(
      (row) => row.userId === c.req.param('user'),
    );
    if (!member) return notFoundPage(c, viewerOf(c));
    if (!MANAGER_ROLES.has(membership.role)) {
      return membersPage(c, membership, 403, { error: 'Only owners and admins can change members.' });
    }
    if (!mayManage(membership.role, member)) {
      return membersPage(c, membership, 403, { error: 'Only an owner can change or remove an owner.' });
    }
    return { membership, member };
  }

  web.post('/orgs/:org/members/:user/role', async (c) => {
    const found = await managedMember(c);
    if (found instanceof Response) return found;
    const { membership, member } = found;
    const body = await c.req.parseBody({ all: true });
    const role = parseRole(text(body, 'role'));
    if (!role) return membersPage(c, membership, 422, { error: 'Choose a role.' });
    if (!grantableRoles(membership.role).includes(role)) {
      return membersPage(c, membership, 403, { error: 'Only an owner can make someone an owner.' });
    }
    // The change applies to the role the form showed, which must still be the role just checked above.
    const shown = parseRole(text(body, 'current_role'));
    try {
      if (shown !== member.role) throw new AppError('conflict', MEMBERSHIP_CHANGED_MEANWHILE);
      if (role !== shown) await changeRole(db, membership.organizationId, member.userId, shown, role);
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict')
        return membersPage(c, membership, 409, { error: error.message });
      throw error;
    }
    await deps.tokens.invalidateUser(member.userId);
    return c.redirect(`/orgs/${membership.organizationId}/members?done=role`, 303);
  });

  web.get('/orgs/:org/members/:user/remove', async (c) => {
    const found = await managedMember(c);
    if (found instanceof Response) return found;
    return sendPage(c, <RemoveMemberPage viewer={viewerOf(c)} {...found} />);
  });

  web.post('/orgs/:org/members/:user/remove', async (c) => {
    const found = await managedMember(c);
    if (found instanceof Response) return found;
    const { membership, member } = found;
    try {
      // Only while they still have a role the viewer may remove (an ADMIN never removes a new OWNER); a change
      // between two such roles meanwhile does not stop the removal.
      await removeMembership(
        db,
        deps.now(),
        membership.organizationId,
        member.userId,
        managedRoles(membership.role),
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict')
        return membersPage(c, membership, 409, { error: error.message });
      throw error;
    }
    await deps.tokens.invalidateUser(member.userId);
    if (member.userId === c.get('user').id) return c.redirect('/orgs', 303);
    return c.redirect(`/orgs/${membership.organizationId}/members?done=removed`, 303);
  });

  web.get('/orgs/:org/activity', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!MANAGER_ROLES.has(membership.role)) {
      return errorPage(
        c,
        403,
        'Owners and admins only',
        'Only owners and admins of this organization see its activity.',
        viewerOf(c),
        {
          kind: 'organization',
          organizationId: membership.organizationId,
          page: 'activity',
        },
      );
    }
    await deps.usage.flush();
    const now = deps.now();
    const activity = await callActivity(
      db,
      { organizationId: membership.organizationId },
      activitySince(now),
    );
    return sendPage(
      c,
      <ActivityPage viewer={viewerOf(c)} membership={membership} now={now} activity={activity} />,
    );
  });
  return web;
}
