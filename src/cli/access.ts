// What reaches the service: API tokens and connected OAuth clients, as the web's Settings pages show them.
import { requireUserByEmail } from '../accounts.ts';
import { type TokenScope, tokenScopeOf } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { createGrantService } from '../oauth/grants.ts';
import { purgeUnusedClients, UNUSED_CLIENT_DAYS } from '../oauth/purge.ts';
import { type CliCommand, need, UsageError, type Values } from './args.ts';

/** The longest an API token lives, as in the web form (README, "Tokens"); the CLI also allows shorter than 7 days. */
const MAX_TOKEN_DAYS = 365;

export const ACCESS_COMMANDS: CliCommand[] = [
  {
    name: 'token create',
    usage: `token create --email E --name N [--scope read|propose|read_write, default read_write] [--org ORG_ID]...
               [--expires-in-days 1..365 | --expires-at ISO]   -> {"id":"tok_...","token":"...","expires_at":"..."}`,
    async run({ db, now, tokens, values }) {
      const scope = (values.scope ?? 'read_write').toLowerCase();
      if (tokenScopeOf(scope) === null) throw new UsageError('--scope must be read, propose or read_write');
      const user = await requireUserByEmail(db, need(values, 'email'));
      const created = await tokens.create({
        userId: user.id,
        name: need(values, 'name'),
        scope: scope as TokenScope,
        organizationIds: values.org && values.org.length > 0 ? values.org : null,
        expiresAt: expiryFrom(values, now()),
      });
      return { id: created.id, token: created.token, expires_at: created.expires_at };
    },
  },
  {
    name: 'token revoke',
    usage: 'token revoke --id TOKEN_ID                              -> {"ok":true}',
    async run({ tokens, values }) {
      const revoked = await tokens.revoke(need(values, 'id'));
      if (!revoked) throw new AppError('not_found', 'No active token with that id.');
      return { ok: true };
    },
  },
  {
    name: 'token list',
    usage: 'token list --email E                                    -> {"tokens":[...]}',
    async run({ db, tokens, values }) {
      const user = await requireUserByEmail(db, need(values, 'email'));
      return { tokens: await tokens.list(user.id) };
    },
  },
  {
    name: 'client list',
    usage: `client list --email E                                   -> {"clients":[...]} the person's connected OAuth clients`,
    // The OAuth clients a person connected (Settings > API Tokens > Connected clients).
    async run({ db, tokens, now, values }) {
      const user = await requireUserByEmail(db, need(values, 'email'));
      return { clients: await createGrantService({ db, tokens, now }).listForUser(user.id) };
    },
  },
  {
    name: 'client revoke',
    usage:
      'client revoke --email E --id GRANT_ID                   -> {"ok":true} ends that connection and its tokens',
    // Ends the connection (grant) and every token it issued, as the web page's Revoke does.
    async run({ db, tokens, now, values }) {
      const user = await requireUserByEmail(db, need(values, 'email'));
      const ended = await createGrantService({ db, tokens, now }).endGrant(need(values, 'id'), user.id);
      if (!ended) throw new AppError('not_found', 'No active connected client with that id for this user.');
      return { ok: true };
    },
  },
  {
    name: 'client purge',
    usage:
      'client purge                                            -> {"purged":[...]} OAuth clients never used (24 h) or unused (90 days)',
    // What the Node host does at start and hourly, for a database no Node host serves (the Worker's).
    run: async ({ db, now }) => ({
      purged: await purgeUnusedClients(db, now()),
      unused_days: UNUSED_CLIENT_DAYS,
    }),
  },
];

function expiryFrom(values: Values, now: Date): string | null {
  const days = values['expires-in-days'];
  const at = values['expires-at'];
  if (days !== undefined && at !== undefined)
    throw new UsageError('Give --expires-in-days or --expires-at, not both');
  if (at !== undefined) {
    const time = Date.parse(at);
    if (Number.isNaN(time)) throw new UsageError(`--expires-at is not an ISO date: ${at}`);
    if (time <= now.getTime()) throw new UsageError(`--expires-at is not in the future: ${at}`);
    if (time > now.getTime() + MAX_TOKEN_DAYS * 86_400_000)
      throw new UsageError(
        `--expires-at is more than ${MAX_TOKEN_DAYS} days away: API tokens live at most a year`,
      );
    return new Date(time).toISOString();
  }
  const count = days === undefined ? 90 : Number(days);
  if (!Number.isInteger(count) || count < 1 || count > MAX_TOKEN_DAYS)
    throw new UsageError(`--expires-in-days must be 1..${MAX_TOKEN_DAYS}`);
  return new Date(now.getTime() + count * 86_400_000).toISOString();
}
