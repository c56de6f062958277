// Seeds the demo: a user, an organization holding the demo records (DEMO_RECORDS, added through the tool map) and
// a token. addDemoRecords also fills any organization, for tests and benchmarks.
import { count } from 'drizzle-orm';
import { createOrganization, createUser } from '../accounts.ts';
import type { Principal } from '../auth/principal.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Db } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { randomBase32 } from '../ids.ts';
import { REGISTERS } from '../tools/index.ts';
import { contextOutsideSeam, type ToolContext } from '../tools/types.ts';
import { DEMO_LINKS, DEMO_RECORDS, DEMO_USER, type DemoLink, type DemoRecord } from './records.ts';

export interface DemoAccount {
  email: string;
  password: string;
  organization_id: string;
  token: string;
}

export async function isEmptyDatabase(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

function isoDate(base: Date, days: number): string {
  return new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A demo value with its references (`{ref}`) and relative dates (`{days}`) resolved. */
function resolved(value: unknown, ids: ReadonlyMap<string, string>, today: Date): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(item, ids, today));
  if (typeof value !== 'object' || value === null) return value;
  if ('ref' in value) {
    const id = ids.get(String(value.ref));
    if (!id) throw new Error(`Demo record ${String(value.ref)} is referred to before it is added`);
    return id;
  }
  if ('days' in value) return isoDate(today, Number(value.days));
  return value;
}

/**
 * Adds `records` and `links` to an organization through the registers' tools (validated, with history rows), in
 * order; answers the id of each keyed record. `ctx` must reach the organization with write rights.
 */
export async function addDemoRecords(
  ctx: ToolContext,
  organizationId: string,
  records: readonly DemoRecord[] = DEMO_RECORDS,
  links: readonly DemoLink[] = DEMO_LINKS,
): Promise<Map<string, string>> {
  // The account seeding the demo is the one its tasks are assigned to.
  const ids = new Map<string, string>([[DEMO_USER, ctx.principal.userId]]);
  const today = ctx.now();
  for (const record of records) {
    const { add, spec } = REGISTERS[record.kind];
    const values = Object.fromEntries(
      Object.entries(record.values).map(([name, value]) => [name, resolved(value, ids, today)]),
    );
    const result = await add.run(ctx, add.input.parse({ organization_id: organizationId, ...values }));
    const added = result[spec.key] as { id: string };
    if (record.key) ids.set(record.key, added.id);
  }
  for (const link of links) {
    const tools = REGISTERS[link.kind].links.find((item) => item.relation.field === link.field);
    if (!tools) throw new Error(`No link tools for ${link.kind}.${link.field}`);
    const args = {
      [tools.ownerArgument]: resolved({ ref: link.owner }, ids, today),
      [tools.targetArgument]: resolved({ ref: link.target }, ids, today),
    };
    await tools.link.run(ctx, tools.link.input.parse(args));
  }
  return ids;
}

export async function seedDemo(db: Db, tokens: TokenService, now: () => Date): Promise<DemoAccount> {
  const email = `demo-${randomBase32(6)}@example.com`;
  const password = `demo-${randomBase32(16)}`;
  const user = await createUser(db, now(), { email, password, name: 'Demo Compliance Lead' });
  const organization = await createOrganization(db, now(), {
    name: 'Acme Health (demo)',
    description: 'A 120-person health-tech SaaS preparing for ISO 27001 certification.',
    ownerId: user.id,
  });
  const principal: Principal = {
    tokenId: 'tok_demo_seed',
    userId: user.id,
    scope: 'read_write',
    roles: { [organization.id]: 'OWNER' },
    expiresAt: null,
  };
  await addDemoRecords(contextOutsideSeam(db, principal, now, 'cli'), organization.id);
  const token = await tokens.create({
    userId: user.id,
    name: 'Demo token (created at first start)',
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(now().getTime() + 90 * 86_400_000).toISOString(),
  });
  return { email, password, organization_id: organization.id, token: token.token };
}
