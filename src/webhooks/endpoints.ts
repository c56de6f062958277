// An organization's webhook endpoints (`whk_...`) and their delivery log: checks, reads and writes. Callers check
// that the person is an owner or admin of the organization; every query here is scoped to it.
import { and, desc, eq, getTableColumns, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { webhookEndpoints, webhookMessages } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { refusedHostname } from '../oauth/addresses.ts';
import { NO_SECRETS_KEY_MESSAGE, type SecretKeyring } from '../secrets/keyring.ts';
import { isEventChoice, retryUntil } from './events.ts';
import { sealEndpointSecret } from './secrets.ts';
import { newWebhookSecret } from './signing.ts';

/** After a rotation the previous secret signs beside the new one this long. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const MAX_ENDPOINTS_PER_ORGANIZATION = 20;
const MAX_URL_LENGTH = 2000;

/**
 * Why a webhook URL is refused, or null: https only (http too when `allowLocal`, for development), no credentials,
 * no fragment, and no literal loopback, private, link-local or reserved address nor local name unless `allowLocal`.
 * Names are checked again against the addresses DNS gives when sending (the Node host), as for client metadata.
 */
export function webhookUrlProblem(value: string, allowLocal: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The URL is not valid.';
  }
  if (value.length > MAX_URL_LENGTH) return `The URL is longer than ${MAX_URL_LENGTH} characters.`;
  if (url.protocol !== 'https:' && !(allowLocal && url.protocol === 'http:'))
    return 'The URL must use https.';
  if (url.username || url.password) return 'The URL must not carry a user name or password.';
  if (url.hash) return 'The URL must not have a #fragment.';
  const refused = allowLocal ? null : refusedHostname(url.hostname);
  return refused ? `The URL points at ${refused}, which is refused.` : null;
}

export type WebhookEndpoint = Omit<typeof webhookEndpoints.$inferSelect, 'secret' | 'previous_secret'> & {
  /** The address of the member who made it (or last turned it on), null if unknown or the account is gone. */
  created_by_email: string | null;
};

const publicColumns = {
  id: webhookEndpoints.id,
  organization_id: webhookEndpoints.organization_id,
  url: webhookEndpoints.url,
  description: webhookEndpoints.description,
  events: webhookEndpoints.events,
  previous_secret_until: webhookEndpoints.previous_secret_until,
  enabled: webhookEndpoints.enabled,
  created_by_user_id: webhookEndpoints.created_by_user_id,
  created_by_email: sql<
    string | null
  >`(select u.email from users u where u.id = ${webhookEndpoints.created_by_user_id})`,
  paused_reason: webhookEndpoints.paused_reason,
  created_at: webhookEndpoints.created_at,
  updated_at: webhookEndpoints.updated_at,
};

export interface EndpointInput {
  url: string;
  description: string | null;
  events: string[];
}

function checkedInput(input: EndpointInput, kinds: readonly string[], allowLocal: boolean): EndpointInput {
  const url = input.url.trim();
  const problem = webhookUrlProblem(url, allowLocal);
  if (problem) throw new AppError('invalid_arguments', problem, [{ path: 'url', message: problem }]);
  const events = [...new Set(input.events.map((event) => event.trim()).filter(Boolean))];
  const unknown = events.find((event) => !isEventChoice(event, kinds));
  if (events.length === 0 || unknown !== undefined) {
    const message = unknown ? `Unknown event type "${unknown}".` : 'Choose at least one event.';
    throw new AppError('invalid_arguments', message, [{ path: 'events', message }]);
  }
  const description = input.description?.trim() || null;
  if (description && description.length > 500) {
    const message = 'The description is longer than 500 characters.';
    throw new AppError('invalid_arguments', message, [{ path: 'description', message }]);
  }
  return { url, description, events };
}

export async function listEndpoints(db: Db, organizationId: string): Promise<WebhookEndpoint[]> {
  return db
    .select(publicColumns)
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organization_id, organizationId))
    .orderBy(webhookEndpoints.created_at, webhookEndpoints.id);
}

/** The endpoint, or `not_found` (also for another organization's). */
export async function getEndpoint(db: Db, organizationId: string, id: string): Promise<WebhookEndpoint> {
  const [row] = await db
    .select(publicColumns)
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organization_id, organizationId)));
  if (!row) throw new AppError('not_found', 'No such webhook endpoint.');
  return row;
}

/** Refuses at once, before any check of the input, when no key could store the secret. */
function requireSecretsKey(secrets: SecretKeyring): void {
  if (!secrets.available) throw new AppError('conflict', NO_SECRETS_KEY_MESSAGE);
}

/** Adds an endpoint; the answer carries its secret, which is never shown again (the row holds it encrypted). */
export async function createEndpoint(
  db: Db,
  now: Date,
  organizationId: string,
  input: EndpointInput,
  // createdBy: the member adding it; when they leave the organization it is paused (removeMembership).
  options: {
    kinds: readonly string[];
    allowLocal: boolean;
    secrets: SecretKeyring;
    createdBy?: string | null;
  },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  requireSecretsKey(options.secrets);
  const checked = checkedInput(input, options.kinds, options.allowLocal);
  const at = now.toISOString();
  const secret = newWebhookSecret();
  const id = newId('whk');
  const sealed = await sealEndpointSecret(options.secrets, id, secret);
  // Bounded per organization, counted in the insert itself so two at once cannot pass the limit.
  const inserted = await db.run(sql`
    INSERT INTO webhook_endpoints (id, organization_id, url, description, events, secret, enabled, created_by_user_id, created_at, updated_at)
    SELECT ${id}, ${organizationId}, ${checked.url}, ${checked.description}, ${JSON.stringify(checked.events)},
      ${sealed}, 1, ${options.createdBy ?? null}, ${at}, ${at}
    WHERE (SELECT count(*) FROM webhook_endpoints WHERE organization_id = ${organizationId}) < ${MAX_ENDPOINTS_PER_ORGANIZATION}`);
  if (inserted.rowsAffected === 0)
    throw new AppError(
      'conflict',
      `An organization has at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first.`,
    );
  return { endpoint: await getEndpoint(db, organizationId, id), secret };
}

export async function updateEndpoint(
  db: Db,
  now: Date,
  organizationId: string,
  id: string,
  input: EndpointInput & { enabled: boolean },
  // by: the member saving it; turning on an endpoint paused because its creator left makes them answer for it.
  options: { kinds: readonly string[]; allowLocal: boolean; by?: string | null },
): Promise<WebhookEndpoint> {
  const checked = checkedInput(input, options.kinds, options.allowLocal);
  const adopted = input.enabled && options.by ? options.by : null;
  const updated = await db
    .update(webhookEndpoints)
    .set({
      ...checked,
      enabled: input.enabled,
      ...(input.enabled ? { paused_reason: null } : {}),
      created_by_user_id: sql`case when ${webhookEndpoints.paused_reason} is not null and ${adopted} is not null then ${adopted} else ${webhookEndpoints.created_by_user_id} end`,
      updated_at: now.toISOString(),
    })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organization_id, organizationId)))
    .returning({ id: webhookEndpoints.id });
  if (updated.length === 0) throw new AppError('not_found', 'No such webhook endpoint.');
  return getEndpoint(db, organizationId, id);
}

/**
 * A new secret for the endpoint, shown once; the one it replaces keeps signing beside it for 24 hours
 * (`webhook-signature` then carries both), so the receiver can switch without losing a delivery.
 */
export async function rotateSecret(
  db: Db,
  now: Date,
  organizationId: string,
  id: string,
  secrets: SecretKeyring,
): Promise<string> {
  requireSecretsKey(secrets);
  const secret = newWebhookSecret();
  const updated = await db
    .update(webhookEndpoints)
    .set({
      // Sealed with the row's id, not the column's name: the current value moves over as it is.
      previous_secret: sql`${webhookEndpoints.secret}`,
      previous_secret_until: new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString(),
      secret: await sealEndpointSecret(secrets, id, secret),
      updated_at: now.toISOString(),
    })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organization_id, organizationId)))
    .returning({ id: webhookEndpoints.id });
  if (updated.length === 0) throw new AppError('not_found', 'No such webhook endpoint.');
  return secret;
}

/** Deletes the endpoint and its delivery log (messages not yet sent are dropped with it). */
export async function deleteEndpoint(db: Db, organizationId: string, id: string): Promise<void> {
  const [removed] = await db.batch([
    db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organization_id, organizationId)))
      .returning({ id: webhookEndpoints.id }),
    db
      .delete(webhookMessages)
      .where(and(eq(webhookMessages.endpoint_id, id), eq(webhookMessages.organization_id, organizationId))),
  ]);
  if (removed.length === 0) throw new AppError('not_found', 'No such webhook endpoint.');
}

export type WebhookMessage = Omit<typeof webhookMessages.$inferSelect, 'locked_until'>;

export const DELIVERY_LOG_PAGE = 50;

/** The endpoint's delivery log, newest first, a page at a time (`before`: the last id of the previous page). */
export async function listMessages(
  db: Db,
  organizationId: string,
  endpointId: string,
  before?: { created_at: string; id: string },
): Promise<WebhookMessage[]> {
  const { locked_until: _, ...columns } = getTableColumns(webhookMessages);
  return db
    .select(columns)
    .from(webhookMessages)
    .where(
      and(
        eq(webhookMessages.organization_id, organizationId),
        eq(webhookMessages.endpoint_id, endpointId),
        before
          ? or(
              lt(webhookMessages.created_at, before.created_at),
              and(eq(webhookMessages.created_at, before.created_at), lt(webhookMessages.id, before.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(webhookMessages.created_at), desc(webhookMessages.id))
    .limit(DELIVERY_LOG_PAGE);
}

/**
 * Sends a message again: pending at once, with a new day of retries. The receiver gets the same `webhook-id`, so
 * one that already handled it can tell.
 */
export async function redeliver(db: Db, now: Date, organizationId: string, messageId: string): Promise<void> {
  const at = now.toISOString();
  const updated = await db
    .update(webhookMessages)
    .set({ status: 'pending', next_attempt_at: at, retry_until: retryUntil(at), locked_until: null })
    .where(and(eq(webhookMessages.id, messageId), eq(webhookMessages.organization_id, organizationId)))
    .returning({ id: webhookMessages.id });
  if (updated.length === 0) throw new AppError('not_found', 'No such delivery.');
}
