// Health: /healthz (liveness, no token, no data) and /api/mcp/v1/health (token; version, database, time).
import { Hono, type MiddlewareHandler } from 'hono';
import type { Database } from '../db/client.ts';
import type { AppEnv } from '../http/env.ts';

export function createHealthRoutes(deps: {
  database: Database;
  version: string;
  now: () => Date;
  authenticate: MiddlewareHandler<AppEnv>;
  logError: (requestId: string, error: unknown) => void;
}) {
  const routes = new Hono<AppEnv>();

  routes.get('/healthz', (c) => c.json({ status: 'ok' }));

  routes.get('/api/mcp/v1/health', deps.authenticate, async (c) => {
    let database: 'ok' | 'error' = 'ok';
    try {
      await deps.database.client.execute('select 1');
    } catch (error) {
      database = 'error';
      deps.logError(c.get('requestId'), error);
    }
    return c.json(
      {
        status: database === 'ok' ? 'ok' : 'degraded',
        version: deps.version,
        database,
        time: deps.now().toISOString(),
      },
      database === 'ok' ? 200 : 503,
    );
  });

  return routes;
}
