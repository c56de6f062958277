// The delivery runner: claims due messages from the outbox, signs and sends them with a concurrency limit, records
// each outcome, and schedules retries with exponential backoff until the message's retry window closes.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { type SecretKeyring, SecretUnreadableError } from '../secrets/keyring.ts';
import { openEndpointSecret } from './secrets.ts';
import { SEND_LIMITS, type SendLimits, WebhookSendError, type WebhookSender } from './send.ts';
import { signWebhook } from './signing.ts';

/**
 * Retries and claims: after the n-th failed attempt a message waits `retryBaseMs * 4^(n-1)` (at most 6 h); a claimed
 * message is held `claimMs` (more than one send's deadline), so a runner killed meanwhile frees it then. The defaults
 * are WEBHOOK_RETRY_BASE_MS and WEBHOOK_CLAIM_MS's.
 */
export interface DeliveryTiming {
  retryBaseMs: number;
  claimMs: number;
}

export const DEFAULT_DELIVERY_TIMING: DeliveryTiming = { retryBaseMs: 30_000, claimMs: 60_000 };
/** Sends in flight at once in one run: a slow receiver holds one of them, never the others. */
export const DELIVERY_CONCURRENCY = 8;

/**
 * The wait after the n-th failed attempt: 30 s, 2 min, 8 min, 32 min, about 2 h, then 6 h each time, so a message
 * is tried about 9 times over its day before it is marked failed.
 */
export function retryDelayMs(
  failedAttempts: number,
  timing: DeliveryTiming = DEFAULT_DELIVERY_TIMING,
): number {
  return Math.min(timing.retryBaseMs * 4 ** Math.max(0, failedAttempts - 1), 6 * 60 * 60 * 1000);
}

export interface DeliveryRun {
  /** Messages sent in this run. */
  sent: number;
  delivered: number;
  /** Failed this time and scheduled again. */
  retrying: number;
  /** Failed for good: their retry window closed. */
  failed: number;
}

export interface DeliveryOptions {
  send: WebhookSender;
  now: () => Date;
  /** At most this many messages in the run (the Worker's subrequest budget: one request each, plus two). */
  limit: number;
  allowLocal: boolean;
  /** Opens the endpoints' signing secrets, kept encrypted (src/webhooks/secrets.ts). */
  secrets: SecretKeyring;
  concurrency?: number;
  limits?: Partial<Pick<SendLimits, 'timeoutMs' | 'maxResponseBytes'>>;
  timing?: DeliveryTiming;
}

interface Claimed {
  id: string;
  endpoint_id: string;
  payload: string;
  attempts: number;
  retry_until: string;
}

interface EndpointSecrets {
  id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
}

interface Outcome {
  message: Claimed;
  status: number | null;
  error: string | null;
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * One delivery run: at most `limit` due messages, two database requests (claim with the endpoints' secrets in one
 * batch, then all outcomes in one batch) plus one HTTP request per message.
 */
export async function deliverDueWebhooks(db: Db, options: DeliveryOptions): Promise<DeliveryRun> {
  const started = options.now();
  const at = started.toISOString();
  const timing = options.timing ?? DEFAULT_DELIVERY_TIMING;
  const lockedUntil = new Date(started.getTime() + timing.claimMs).toISOString();
  // A read first: with nothing due (no endpoint, or all delivered) a run writes nothing, so the run a Worker starts
  // after each write costs one indexed read, not a write transaction of its own.
  const due = await db.all(
    sql`SELECT 1 FROM webhook_messages WHERE status = 'pending' AND next_attempt_at <= ${at} LIMIT 1`,
  );
  if (due.length === 0) return { sent: 0, delivered: 0, retrying: 0, failed: 0 };
  const [claimed, endpoints] = await db.batch([
    db.all<Claimed>(sql`
      UPDATE webhook_messages SET locked_until = ${lockedUntil}, attempts = attempts + 1, last_attempt_at = ${at}
      WHERE id IN (
        SELECT m.id FROM webhook_messages m
        WHERE m.status = 'pending' AND m.next_attempt_at <= ${at} AND (m.locked_until IS NULL OR m.locked_until <= ${at})
          AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = m.endpoint_id AND e.enabled = 1)
        ORDER BY m.next_attempt_at LIMIT ${options.limit})
      RETURNING id, endpoint_id, payload, attempts, retry_until`),
    db.all<EndpointSecrets>(sql`
      SELECT id, url, secret, previous_secret, previous_secret_until FROM webhook_endpoints
      WHERE id IN (SELECT endpoint_id FROM webhook_messages WHERE locked_until = ${lockedUntil} AND last_attempt_at = ${at})`),
  ]);
  const run: DeliveryRun = { sent: claimed.length, delivered: 0, retrying: 0, failed: 0 };
  if (claimed.length === 0) return run;
  const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  const limits: SendLimits = { ...SEND_LIMITS, ...options.limits, allowLocal: options.allowLocal };
  const outcomes = await pooled(
    claimed,
    options.concurrency ?? DELIVERY_CONCURRENCY,
    async (message): Promise<Outcome> => {
      const endpoint = byId.get(message.endpoint_id);
      if (!endpoint) return { message, status: null, error: 'The endpoint is disabled or was deleted.' };
      const timestamp = Math.floor(options.now().getTime() / 1000);
      const sealed = [endpoint.secret];
      if (endpoint.previous_secret && (endpoint.previous_secret_until ?? '') > options.now().toISOString())
        sealed.push(endpoint.previous_secret);
      let secrets: string[];
      try {
        secrets = await Promise.all(
          sealed.map((stored) => openEndpointSecret(options.secrets, endpoint.id, stored)),
        );
      } catch (error) {
        // Not sent unsigned: the log says why, and the retries go on (the operator may restore the key meanwhile).
        if (!(error instanceof SecretUnreadableError)) throw error;
        return { message, status: null, error: `The signing secret cannot be read. ${error.message}` };
      }
      try {
        const { status } = await options.send(
          {
            url: endpoint.url,
            headers: {
              'content-type': 'application/json',
              'user-agent': 'compliance-mcp-webhooks',
              'webhook-id': message.id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': await signWebhook(secrets, message.id, timestamp, message.payload),
            },
            body: message.payload,
          },
          limits,
        );
        return {
          message,
          status,
          error: status >= 200 && status < 300 ? null : `The receiver answered HTTP ${status}.`,
        };
      } catch (error) {
        const reason = error instanceof WebhookSendError ? error.message : 'The request failed.';
        return { message, status: null, error: reason };
      }
    },
  );
  const finished = options.now();
  const done = finished.toISOString();
  const statements = outcomes.map(({ message, status, error }) => {
    // Only while the claim is still this run's: a message redelivered or claimed again meanwhile is left alone.
    const mine = sql`id = ${message.id} AND locked_until = ${lockedUntil}`;
    if (error === null) {
      run.delivered += 1;
      return db.run(sql`
        UPDATE webhook_messages SET status = 'delivered', delivered_at = ${done}, last_status_code = ${status},
          last_error = NULL, locked_until = NULL WHERE ${mine}`);
    }
    const nextAt = new Date(finished.getTime() + retryDelayMs(message.attempts, timing)).toISOString();
    const giveUp = nextAt > message.retry_until;
    if (giveUp) run.failed += 1;
    else run.retrying += 1;
    return db.run(sql`
      UPDATE webhook_messages SET status = ${giveUp ? 'failed' : 'pending'}, next_attempt_at = ${nextAt},
        last_status_code = ${status}, last_error = ${error}, locked_until = NULL WHERE ${mine}`);
  });
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
  return run;
}
