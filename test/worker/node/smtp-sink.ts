// Node side of the Worker's email test: a real SMTP server on loopback (smtp-server) that parses each message with
// mailparser, and an HTTP page on loopback listing what it received, which the test in workerd reads with fetch.
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
  const smtp = new SMTPServer({
    // The Worker signs in (AUTH PLAIN or LOGIN over plain TCP, as on a loopback relay) with these credentials.
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
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
  const inbox = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(received));
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
