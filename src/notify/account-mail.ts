// Account emails (confirm an address, reset a password, an invitation): sent after the answer, so how long sending
// takes (or whether a mail goes at all) never shows in the answer's timing.
import type { Context } from 'hono';
import type { Config } from '../config.ts';
import { isLoopbackHost } from '../http/origin.ts';
import type { MailerFactory } from './mailer.ts';

export interface AccountEmail {
  to: string;
  subject: string;
  text: string;
  /** What it is for, in the `X-Compliance-Account` header (e.g. `signup`, `reset`, `invitation`). */
  purpose: string;
}

export interface AccountMail {
  /** True when the host has SMTP settings; otherwise the pages say to ask the operator for the link (CLI). */
  readonly configured: boolean;
  /** Sends after the response (the Worker's waitUntil; a detached promise on Node); a failure is logged only. */
  send(c: Context, email: AccountEmail): void;
  /** The absolute URL of a path, for links in emails (see linkBase). */
  url(c: Context, path: string): string;
}

/**
 * Where links in emails point: PUBLIC_URL, else the request's own origin when it names a loopback host (a local
 * instance). Any other Host header is not trusted for a link that carries a secret (it could name another site), so
 * the email then gives the path alone.
 */
function linkBase(c: Context, config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const url = new URL(c.req.url);
  return isLoopbackHost(url.hostname.replace(/^\[|\]$/g, '')) ? url.origin : '';
}

export function createAccountMail(
  config: Config,
  mailer: MailerFactory | undefined,
  log: (line: string) => void,
): AccountMail {
  const settings = config.mail;
  return {
    configured: Boolean(settings && mailer),
    send(c, email) {
      if (!settings || !mailer) return;
      const sending = (async () => {
        const session = mailer(settings);
        try {
          await session.send({
            to: email.to,
            subject: email.subject,
            text: email.text,
            headers: { 'X-Compliance-Account': email.purpose },
          });
        } finally {
          await session.close();
        }
      })().catch((error: unknown) =>
        log(
          `account email (${email.purpose}) not sent: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      try {
        c.executionCtx.waitUntil(sending);
      } catch {
        // Node: no execution context; the promise runs on by itself.
      }
    },
    url(c, path) {
      return `${linkBase(c, config)}${path}`;
    },
  };
}
