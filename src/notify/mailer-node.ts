// Node host's Mailer: nodemailer over SMTP, one pooled transport per run.
import nodemailer from 'nodemailer';
import type { MailSettings } from '../config.ts';
import { type Mailer, messageOf } from './mailer.ts';

export function nodeMailer(settings: MailSettings): Mailer {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    pool: true,
    maxConnections: 1,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(email) {
      await transport.sendMail(messageOf(settings, email));
    },
    async close() {
      transport.close();
    },
  };
}
