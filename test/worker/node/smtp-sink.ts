// Node side of the Worker's email test: a real SMTP server on loopback (smtp-server, no STARTTLS) that parses each
// message with mailparser, and an HTTP page on loopback listing what it received (`/`) and the user names that
// signed in (`/auths`), which the tests in workerd read with fetch.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMessage {
  envelopeTo: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  notificationId: string | null;
}

export const SMTP_USER = 'notify';
export const SMTP_PASSWORD = 'loopback secret';

export async function startSmtpSink(): Promise<{
  smtpPort: number;
  inboxUrl: string;
  close(): Promise<void>;
}> {
  const received: ReceivedMessage[] = [];
  const auths: string[] = [];
  const smtp = new SMTPServer({
    // The Worker signs in (AUTH PLAIN or LOGIN over plain TCP, as on a loopback relay, with SMTP_INSECURE=true) with
    // these credentials; without SMTP_INSECURE it must not sign in at all.
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      auths.push(auth.username ?? '');
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        callback(null, { user: auth.username });
      else callback(new Error('535 authentication failed'));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            envelopeTo: session.envelope.rcptTo.map((address) => address.address),
            from: mail.from?.text ?? '',
            to: Array.isArray(mail.to) ? mail.to.map((to) => to.text).join(', ') : (mail.to?.text ?? ''),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            notificationId: (mail.headers.get('x-compliance-notification') as string | undefined) ?? null,
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const inbox = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(request.url === '/auths' ? auths : received));
  });
  await new Promise<void>((resolve) => inbox.listen(0, '127.0.0.1', resolve));
  return {
    smtpPort: (smtp.server.address() as AddressInfo).port,
    inboxUrl: `http://127.0.0.1:${(inbox.address() as AddressInfo).port}/`,
    async close() {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await new Promise<void>((resolve) => inbox.close(() => resolve()));
    },
  };
}
