// Seeds the contract's world through the core's Node functions (runs in Node: the core's tests and the Worker's globalSetup).
import { eq } from 'drizzle-orm';
import { createOrganization } from '../../src/accounts.ts';
import { hashToken } from '../../src/auth/tokens.ts';
import { apiTokens } from '../../src/db/schema.ts';
import type { Runtime } from '../../src/runtime.ts';
import { addMember, createActor, createToken } from '../helpers.ts';
import type { ContractWorld } from './host.ts';

export async function seedContractWorld(runtime: Runtime): Promise<ContractWorld> {
  const db = runtime.database.db;
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  const vic = await createActor(runtime, 'vic');
  const org = async (name: string, ownerId: string) =>
    (await createOrganization(db, new Date(), { name, ownerId })).id;
  const orgTools = await org('Tools Corp', alice.userId);
  const orgIsolation = await org('Isolation Corp', alice.userId);
  const orgPaging = await org('Paging Corp', alice.userId);
  const orgAuth = await org('Auth Corp', alice.userId);
  const orgBob = await org('Bob Corp', bob.userId);
  await addMember(runtime, orgAuth, vic, 'VIEWER');

  // Tokens cannot be created already expired: create one, then move its expiry into the past.
  const expired = await createToken(runtime, alice, {
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  await db
    .update(apiTokens)
    .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
    .where(eq(apiTokens.token_hash, await hashToken(expired)));
  const revoked = await createToken(runtime, alice);
  const [revokedRow] = await db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .where(eq(apiTokens.token_hash, await hashToken(revoked)));
  if (!revokedRow || !(await runtime.tokens.revoke(revokedRow.id)))
    throw new Error('could not revoke the seeded token');

  return {
    orgTools,
    orgIsolation,
    orgPaging,
    orgAuth,
    orgBob,
    aliceUserId: alice.userId,
    tokens: {
      alice: await createToken(runtime, alice),
      alicePaging: await createToken(runtime, alice),
      aliceRead: await createToken(runtime, alice, { scope: 'read' }),
      aliceRestricted: await createToken(runtime, alice, { organizationIds: [orgAuth] }),
      bob: await createToken(runtime, bob),
      vic: await createToken(runtime, vic),
      expired,
      revoked,
    },
  };
}
