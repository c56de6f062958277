// Node host's Mailer: nodemailer over SMTP, one pooled transport per run; TLS from the start or by STARTTLS, required
// before anything is sent (the password included) unless SMTP_INSECURE.
import nodemailer from 'nodemailer';
import type { MailSettings } from '../config.ts';
import { type Mailer, messageOf, SMTP_TLS_REQUIRED_MESSAGE } from './mailer.ts';

export function nodeMailer(settings: MailSettings): Mailer {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    // STARTTLS is sent even when not offered, and a refusal ends the session before AUTH.
    requireTLS: !settings.secure && !settings.insecure,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    pool: true,
    maxConnections: 1,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(email) {
      try {
        await transport.sendMail(messageOf(settings, email));
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'ETLS') throw error;
        throw new Error(
          `${SMTP_TLS_REQUIRED_MESSAGE} (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    },
    async close() {
      transport.close();
    },
  };
}
