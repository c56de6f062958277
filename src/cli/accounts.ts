// People and organizations from the operator's shell: accounts, address confirmation, reset links, organizations,
// direct membership.
import {
  completeSignUp,
  issueLink,
  type LinkPurpose,
  linkPath,
  type PendingSignUp,
  pendingSignUpOf,
  signUpOf,
} from '../account-links.ts';
import {
  countUsers,
  createOrganization,
  createUser,
  findUserByEmail,
  markEmailVerified,
  normalizeEmail,
  requireUserByEmail,
  setMembership,
} from '../accounts.ts';
import { ROLES, type Role } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { type CliCall, type CliCommand, need, oneOrganization, UsageError } from './args.ts';

export const ACCOUNT_COMMANDS: CliCommand[] = [
  {
    name: 'user create',
    usage: `user create --email E --password P [--name N] [--verified]   -> {"id":"usr_...","email_verified":...}
               the first account of an instance has its address confirmed; later ones with --verified`,
    async run({ db, now, values }) {
      // The first account of an instance is the operator's own: its address counts as confirmed.
      const verified = values.verified === true || (await countUsers(db)) === 0;
      const user = await createUser(db, now(), {
        email: need(values, 'email'),
        password: need(values, 'password'),
        name: values.name ?? null,
        emailVerified: verified,
      });
      return { id: user.id, email_verified: verified };
    },
  },
  {
    name: 'user verify',
    argument: 'EMAIL',
    usage: `user verify E [--link]                                  -> {"email","verified":true} confirms the address of an
               account, or makes the account of a sign-up waiting for its link (with the password chosen);
               --link prints a confirmation link to send instead: {"email","link","expires_at"}`,
    async run(call) {
      const { db, now, values, config } = call;
      const email = normalizeEmail(addressArgument(call));
      const user = await findUserByEmail(db, email);
      if (user) {
        if (user.email_verified_at) return { email, verified: true, already: true };
        if (values.link) return await printedLink(db, config, 'verify', email, user.id);
        await markEmailVerified(db, user.id, now());
        return { email, verified: true };
      }
      const pending = await pendingSignUpOf(db, email, now());
      if (!pending)
        throw new AppError('not_found', `No account, and no sign-up waiting for its link, for ${email}.`);
      if (values.link) {
        const signUp = signUpOf(pending);
        if (!signUp) throw new AppError('not_found', `No sign-up waiting for its link for ${email}.`);
        return await printedLink(db, config, 'signup', email, null, signUp);
      }
      // The operator vouches for the address: the sign-up's own link need not be opened.
      const made = await completeSignUp(db, now(), pending, 'operator');
      return { id: made.userId, email, verified: true };
    },
  },
  {
    name: 'user reset-link',
    argument: 'EMAIL',
    usage: `user reset-link E                                       -> {"email","link","expires_at"} a one-hour link to choose
               a new password (the web's "Forgot your password?" without email)`,
    async run(call) {
      const email = normalizeEmail(addressArgument(call));
      const user = await requireUserByEmail(call.db, email);
      return await printedLink(call.db, call.config, 'reset', email, user.id);
    },
  },
  {
    name: 'org create',
    usage: 'org create --name N --owner EMAIL                       -> {"id":"org_..."}',
    async run({ db, now, values }) {
      const owner = await requireUserByEmail(db, need(values, 'owner'));
      return await createOrganization(db, now(), { name: need(values, 'name'), ownerId: owner.id });
    },
  },
  {
    name: 'member add',
    usage: `member add --org ORG_ID --email E --role OWNER|ADMIN|EDITOR|VIEWER [--earlier-tokens]   -> {"ok":true}
               the operator's direct add, without an invitation (an existing member: role set); the person's
               tokens for all organizations reach it only if made later, or with --earlier-tokens`,
    async run({ db, now, values }) {
      const role = need(values, 'role').toUpperCase();
      if (!ROLES.includes(role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const organizationId = oneOrganization(values);
      const user = await requireUserByEmail(db, need(values, 'email'));
      await setMembership(db, now(), organizationId, user.id, role as Role, {
        earlierTokens: values['earlier-tokens'] === true,
      });
      return { ok: true };
    },
  },
];

/** The address of `user verify E` / `user reset-link E` (or `--email E`). */
function addressArgument({ argument, values }: CliCall): string {
  const email = argument ?? values.email;
  if (!email) throw new UsageError('Give the email address, e.g. user verify alice@example.com');
  return email;
}

/** Makes a link and prints it for the operator to pass on: PUBLIC_URL, else the Node host's own address. */
async function printedLink(
  db: Db,
  config: Config,
  purpose: LinkPurpose,
  email: string,
  userId: string | null,
  signUp?: PendingSignUp,
): Promise<{ email: string; link: string; expires_at: string }> {
  const { secret, expiresAt } = await issueLink(db, new Date(), {
    purpose,
    email,
    userId,
    ...(signUp ? { signUp } : {}),
  });
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = config.publicUrl ?? `http://${host}:${config.port}`;
  return { email, link: `${base}${linkPath(purpose, secret)}`, expires_at: expiresAt };
}
