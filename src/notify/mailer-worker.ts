// Worker's Mailer: worker-mailer over a TCP socket (cloudflare:sockets), one SMTP session per run.
import { LogLevel, WorkerMailer } from 'worker-mailer';
import type { MailSettings } from '../config.ts';
import { addressParts, type Mailer, messageOf } from './mailer.ts';

export function workerMailer(settings: MailSettings): Mailer {
  let session: Promise<WorkerMailer> | undefined;
  const connect = () => {
    session ??= WorkerMailer.connect({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      startTls: !settings.secure,
      ...(settings.user
        ? {
            credentials: { username: settings.user, password: settings.password ?? '' },
            authType: ['plain', 'login'],
          }
        : {}),
      logLevel: LogLevel.ERROR,
      socketTimeoutMs: 10_000,
      responseTimeoutMs: 30_000,
    });
    return session;
  };
  return {
    async send(email) {
      let mailer: WorkerMailer;
      try {
        mailer = await connect();
      } catch (error) {
        session = undefined;
        throw error;
      }
      await mailer.send({ ...messageOf(settings, email), from: addressParts(settings.from) });
    },
    async close() {
      const current = session;
      session = undefined;
      if (current) await current.then((mailer) => mailer.close()).catch(() => undefined);
    },
  };
}
