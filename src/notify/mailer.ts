// How the notification engine sends email: one Mailer per run, made by the host from the SMTP settings.
import type { MailSettings } from '../config.ts';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  /** Message headers beside the usual ones (e.g. X-Notification-Id). */
  headers: Record<string, string>;
}

/** An SMTP session for one run: `send` resolves once the server accepted the message, `close` ends the session. */
export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
  close(): Promise<void>;
}

/** What a run's log says when the session could not be made private and SMTP_INSECURE is not set. */
export const SMTP_TLS_REQUIRED_MESSAGE =
  'The SMTP session could not be encrypted (the server offers no STARTTLS, or refused it): nothing was sent, the ' +
  'password neither. Use smtps:// (port 465) or a server with STARTTLS, or set SMTP_INSECURE=true for a relay on a ' +
  'trusted network.';

/** Makes a Mailer from the settings: nodemailer on Node (mailer-node.ts), worker-mailer in workerd (mailer-worker.ts). */
export type MailerFactory = (settings: MailSettings) => Mailer;

/** The message both mailers send: the sender from the settings, then the email's own parts. */
export function messageOf(settings: MailSettings, email: OutgoingEmail) {
  return {
    from: settings.from,
    to: email.to,
    subject: email.subject,
    text: email.text,
    headers: email.headers,
  };
}

/** `Name <address>` or `address` as its parts (worker-mailer takes the sender's name and address apart). */
export function addressParts(text: string): { name?: string; email: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(text);
  if (!match) return { email: text.trim() };
  const name = match[1]?.trim();
  return name ? { name, email: (match[2] ?? '').trim() } : { email: (match[2] ?? '').trim() };
}
