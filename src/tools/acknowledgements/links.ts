// Acknowledgement links: one random secret per person per request, only its SHA-256 kept. A link grants reading one
// document version and acknowledging it, nothing else; it ends when used or when it expires.
import { and, eq, gt, isNull } from 'drizzle-orm';
import { randomBase64Url, sha256Hex } from '../../auth/crypto.ts';
import type { Db } from '../../db/client.ts';
import { acknowledgements, documents, documentVersions, organizations } from '../../db/schema.ts';
import { changeAfterWrite, linkWriter } from '../changes.ts';
import { completionEvidence } from './cycles.ts';

/** The path a link opens; the public pages (src/web/public/) serve it. */
export const ACK_LINK_PREFIX = '/ack/';

/** A secret's shape: anything else is unknown without a database read. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Whether `secret` has the shape newLinkSecret makes (a public link's path part); any other is refused unread. */
export function isLinkSecretShape(secret: string): boolean {
  return SECRET_PATTERN.test(secret);
}

export function ackLinkPath(secret: string): string {
  return `${ACK_LINK_PREFIX}${secret}`;
}

/** A new link secret and the hash that alone is stored. */
export async function newLinkSecret(): Promise<{ secret: string; hash: string }> {
  const secret = randomBase64Url(32);
  return { secret, hash: await sha256Hex(secret) };
}

/** Why a public link shows no data: not one we made (or tampered), already used, or expired. */
export type PublicLinkRefusal = 'unknown' | 'used' | 'expired';

/** What an acknowledgement link grants to read: the organization's name, the document's title, the version's text. */
export interface AckLinkGrant {
  acknowledgementId: string;
  secretHash: string;
  /** Whose row it is, for the history and the evidence (never shown on the page). */
  organizationId: string;
  documentId: string;
  personId: string;
  organizationName: string;
  title: string;
  version: number;
  content: string | null;
}

/** The grant of `secret` if the link can be used now, or why not. */
export async function findAckLink(
  db: Db,
  secret: string,
  now: Date,
): Promise<{ grant: AckLinkGrant } | { refusal: PublicLinkRefusal }> {
  if (!isLinkSecretShape(secret)) return { refusal: 'unknown' };
  const hash = await sha256Hex(secret);
  const [row] = await db
    .select({
      id: acknowledgements.id,
      organization_id: acknowledgements.organization_id,
      document_id: acknowledgements.document_id,
      person_id: acknowledgements.person_id,
      acknowledged_at: acknowledgements.acknowledged_at,
      link_expires_at: acknowledgements.link_expires_at,
      organization: organizations.name,
      title: documents.title,
      version: acknowledgements.version_number,
      content: documentVersions.content,
    })
    .from(acknowledgements)
    .innerJoin(organizations, eq(organizations.id, acknowledgements.organization_id))
    .innerJoin(
      documents,
      and(
        eq(documents.id, acknowledgements.document_id),
        eq(documents.organization_id, acknowledgements.organization_id),
      ),
    )
    .innerJoin(
      documentVersions,
      and(
        eq(documentVersions.document_id, acknowledgements.document_id),
        eq(documentVersions.number, acknowledgements.version_number),
      ),
    )
    .where(eq(acknowledgements.secret_hash, hash))
    .limit(1);
  if (!row) return { refusal: 'unknown' };
  if (row.acknowledged_at) return { refusal: 'used' };
  if (!row.link_expires_at || row.link_expires_at <= now.toISOString()) return { refusal: 'expired' };
  return {
    grant: {
      acknowledgementId: row.id,
      secretHash: hash,
      organizationId: row.organization_id,
      documentId: row.document_id,
      personId: row.person_id,
      organizationName: row.organization,
      title: row.title,
      version: row.version,
      content: row.content,
    },
  };
}

/**
 * Records the acknowledgement through its link, in one batch: the update only an unused, unexpired link passes, its
 * history row on the document (surface `link`, the person as actor: no account acted) and, when it was the last one
 * the request waited for, the request's evidence linked to the document's requirements, as acknowledgeDocument does.
 */
export async function acknowledgeByLink(db: Db, grant: AckLinkGrant, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const writer = linkWriter(db, grant.personId);
  const evidence = await completionEvidence(writer, {
    documentId: grant.documentId,
    organizationId: grant.organizationId,
    title: grant.title,
    version: grant.version,
    personId: grant.personId,
    at,
    acknowledgementId: grant.acknowledgementId,
  });
  const [done] = await db.batch([
    db
      .update(acknowledgements)
      .set({ acknowledged_at: at, method: 'LINK' })
      .where(
        and(
          eq(acknowledgements.id, grant.acknowledgementId),
          eq(acknowledgements.secret_hash, grant.secretHash),
          isNull(acknowledgements.acknowledged_at),
          gt(acknowledgements.link_expires_at, at),
        ),
      )
      .returning({ id: acknowledgements.id }),
    changeAfterWrite(writer, {
      tool: 'acknowledgeDocument',
      kind: 'document',
      recordId: grant.documentId,
      organizationId: grant.organizationId,
      action: 'update',
      before: { acknowledged_version: null },
      after: { acknowledged_version: grant.version, acknowledged_by_id: grant.personId, method: 'LINK' },
      at,
    }),
    ...evidence,
  ]);
  return done.length > 0;
}
