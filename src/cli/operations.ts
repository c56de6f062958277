// Running the service and keeping its database: serve, migrate, backup, the notification run, the secrets key.
import { redactDatabaseUrl } from '../config.ts';
import { backupDatabase } from '../db/backup.ts';
import { mergeSearchIndexes } from '../db/search-maintenance.ts';
import { nodeMailer } from '../notify/mailer-node.ts';
import { notifyOnce } from '../notify/schedule.ts';
import { newSecretsKey } from '../secrets/keyring.ts';
import { rotateSecretsKey } from '../secrets/rotate.ts';
import { type CliCommand, UsageError } from './args.ts';

export const OPERATION_COMMANDS: CliCommand[] = [
  {
    name: 'serve',
    database: false,
    usage:
      'serve                                                   start the server (HOST, PORT, DATABASE_URL, SEED_DEMO)',
    async run({ config }) {
      const { startNodeServer } = await import('../node.ts');
      const server = await startNodeServer(config);
      const stop = () => {
        void server.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return undefined;
    },
  },
  {
    name: 'migrate',
    usage:
      'migrate                                                 apply database migrations, merge the search indexes',
    // What the Node host does at start and hourly, for a database no Node host serves (the Worker's).
    async run({ database, config }) {
      const merged = await mergeSearchIndexes(database.client, { pause: async () => {} });
      return { ok: true, database: redactDatabaseUrl(config.databaseUrl), search_indexes_merged: merged };
    },
  },
  {
    name: 'backup',
    embeddedOnly: true,
    usage: `backup --to FILE                                        -> {"ok":true,"to":"...","bytes":N} a consistent copy of
                                                             an embedded database, taken while the server runs`,
    run: ({ database, config, values }) => backupDatabase(database.client, config.databaseUrl, values.to),
  },
  {
    name: 'notify run',
    usage: `notify run                                              -> {"notifications_created",...,"emails_sent",...} one run
                                                             of the notification engine (SMTP_* and MAIL_FROM)`,
    // What the Node host does on its timer, for a one-off run or a database no Node host serves.
    run: ({ db, config, now }) => notifyOnce({ db, config, mailer: nodeMailer, now: now() }),
  },
  {
    name: 'secrets new-key',
    database: false,
    usage:
      'secrets new-key                                         -> {"key":"..."} a new SECRETS_KEY (32 random bytes, base64)',
    // Needs no database: a key to put in SECRETS_KEY (or a Worker secret).
    run: async () => ({ key: newSecretsKey() }),
  },
  {
    name: 'secrets rotate',
    usage: `secrets rotate [--new-key] [--drop-previous]            -> {"key_id","reencrypted","previous_key_ids",...}
               encrypts every stored secret under the current key (SECRETS_KEY, else the key file beside an
               embedded database), reading the previous ones (SECRETS_KEY_PREVIOUS, the key file's later lines);
               key file only: --new-key makes a new current key first, --drop-previous forgets the previous keys
               once nothing needs them (docs/security.md, "Secrets at rest")`,
    async run({ values, config, database }) {
      if (values['new-key'] && values['drop-previous'])
        throw new UsageError('Give --new-key or --drop-previous, not both (restart the server between them)');
      const step = values['new-key'] ? 'new-key' : values['drop-previous'] ? 'drop-previous' : 'reencrypt';
      return await rotateSecretsKey(config, database, step);
    },
  },
];
