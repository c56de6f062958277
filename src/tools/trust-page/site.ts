// What a trust page shows, read without an account: the page of an enabled slug, and only the records its items name
// (each joined to its own organization), the sub-processors when chosen, the contact. Nothing else is read here; a
// request is written with the notice to the organization's owners and admins.
import { and, asc, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { constantTimeEqual, sha256Hex } from '../../auth/crypto.ts';
import type { Db } from '../../db/client.ts';
import {
  audits,
  documents,
  documentVersions,
  frameworks,
  memberships,
  notificationPreferences,
  storedFiles,
  trustAccessRequests,
  trustPageItems,
  trustPages,
  users,
  vendors,
} from '../../db/schema.ts';
import { enqueueEvent } from '../../webhooks/events.ts';
import { isLinkSecretShape, type PublicLinkRefusal } from '../acknowledgements/links.ts';

/** The path of a trust page on the service's own host; a mapped hostname serves it at its root. */
export const TRUST_PATH_PREFIX = '/trust/';

/** A slug: lower-case letters, digits and inner hyphens, 3..40 characters (checked linearly). */
export const TRUST_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/;

export function trustPagePath(slug: string): string {
  return `${TRUST_PATH_PREFIX}${slug}`;
}

/** The path of an approved request's download link (under the page, so the page's hostname serves it too). */
export function trustDownloadPath(slug: string, secret: string): string {
  return `${trustPagePath(slug)}/download/${secret}`;
}

export interface TrustSite {
  organizationId: string;
  slug: string;
  title: string;
  introduction: string | null;
  contactEmail: string | null;
  showSubProcessors: boolean;
  requestTerms: string;
  linkDays: number;
}

/** The enabled page of `slug`, or null (unknown, malformed or off: the same answer). */
export async function findTrustSite(db: Db, slug: string): Promise<TrustSite | null> {
  if (!TRUST_SLUG_PATTERN.test(slug)) return null;
  const [row] = await db
    .select()
    .from(trustPages)
    .where(and(eq(trustPages.slug, slug), eq(trustPages.enabled, true)))
    .limit(1);
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    slug: row.slug,
    title: row.title,
    introduction: row.introduction,
    contactEmail: row.contact_email,
    showSubProcessors: row.show_sub_processors,
    requestTerms: row.request_terms,
    linkDays: row.link_days,
  };
}

export interface TrustAudit {
  id: string;
  name: string;
  framework: string;
  auditor: string | null;
  state: string;
  validFrom: string | null;
  validUntil: string | null;
}

export interface TrustDocument {
  id: string;
  title: string;
  type: string;
  access: 'PUBLIC' | 'ON_REQUEST';
  version: number;
  publishedAt: string | null;
}

export interface TrustSubProcessor {
  name: string;
  category: string;
  countries: string[];
  websiteUrl: string | null;
}

export interface TrustContent {
  frameworks: { id: string; name: string; version: string | null }[];
  audits: TrustAudit[];
  documents: TrustDocument[];
  subProcessors: TrustSubProcessor[];
}

/** The chosen records of the page's organization, each read through its item and the organization's id. */
export async function trustContentOf(db: Db, site: TrustSite): Promise<TrustContent> {
  const org = site.organizationId;
  const item = (kind: 'framework' | 'audit' | 'document') =>
    and(eq(trustPageItems.organization_id, org), eq(trustPageItems.kind, kind));
  const [chosenFrameworks, chosenAudits, chosenDocuments, subProcessors] = await Promise.all([
    db
      .select({ id: frameworks.id, name: frameworks.name, version: frameworks.version })
      .from(trustPageItems)
      .innerJoin(
        frameworks,
        and(eq(frameworks.id, trustPageItems.record_id), eq(frameworks.organization_id, org)),
      )
      .where(item('framework'))
      .orderBy(asc(frameworks.name), asc(frameworks.id)),
    db
      .select({
        id: audits.id,
        name: audits.name,
        framework: frameworks.name,
        auditor: audits.auditor,
        state: audits.state,
        validFrom: audits.valid_from,
        validUntil: audits.valid_until,
      })
      .from(trustPageItems)
      .innerJoin(audits, and(eq(audits.id, trustPageItems.record_id), eq(audits.organization_id, org)))
      .innerJoin(frameworks, and(eq(frameworks.id, audits.framework_id), eq(frameworks.organization_id, org)))
      .where(item('audit'))
      .orderBy(asc(frameworks.name), asc(audits.id)),
    db
      .select({
        id: documents.id,
        title: documents.title,
        type: documents.type,
        access: trustPageItems.access,
        version: documents.published_version,
        publishedAt: documentVersions.published_at,
      })
      .from(trustPageItems)
      .innerJoin(
        documents,
        and(eq(documents.id, trustPageItems.record_id), eq(documents.organization_id, org)),
      )
      .innerJoin(
        documentVersions,
        and(
          eq(documentVersions.document_id, documents.id),
          eq(documentVersions.number, documents.published_version),
        ),
      )
      .where(and(item('document'), isNotNull(documents.published_version)))
      .orderBy(asc(documents.title), asc(documents.id)),
    site.showSubProcessors
      ? db
          .select({
            name: vendors.name,
            category: vendors.category,
            countries: vendors.countries,
            websiteUrl: vendors.website_url,
          })
          .from(vendors)
          .where(
            and(
              eq(vendors.organization_id, org),
              eq(vendors.sub_processor, true),
              ne(vendors.status, 'OFFBOARDED'),
            ),
          )
          .orderBy(asc(vendors.name), asc(vendors.id))
      : Promise.resolve([]),
  ]);
  return {
    frameworks: chosenFrameworks,
    audits: chosenAudits.map((audit) => ({ ...audit, name: audit.name ?? `${audit.framework} audit` })),
    documents: chosenDocuments.map((document) => ({ ...document, version: document.version ?? 0 })),
    subProcessors,
  };
}

/** A chosen document's published version: its text, and the stored file attached to it (null: none). */
export interface TrustDocumentText {
  title: string;
  version: number;
  content: string;
  fileId: string | null;
}

/** A chosen document's published text, when its item on the page has `access`; else null (not chosen, not published). */
export async function chosenDocumentText(
  db: Db,
  site: TrustSite,
  documentId: string,
  access: 'PUBLIC' | 'ON_REQUEST',
): Promise<TrustDocumentText | null> {
  const org = site.organizationId;
  const [row] = await db
    .select({
      title: documents.title,
      version: documentVersions.number,
      content: documentVersions.content,
      fileId: documentVersions.file_id,
    })
    .from(trustPageItems)
    .innerJoin(documents, and(eq(documents.id, trustPageItems.record_id), eq(documents.organization_id, org)))
    .innerJoin(
      documentVersions,
      and(
        eq(documentVersions.document_id, documents.id),
        eq(documentVersions.number, documents.published_version),
      ),
    )
    .where(
      and(
        eq(trustPageItems.organization_id, org),
        eq(trustPageItems.record_id, documentId),
        eq(trustPageItems.kind, 'document'),
        eq(trustPageItems.access, access),
      ),
    )
    .limit(1);
  if (!row) return null;
  return { title: row.title, version: row.version, content: row.content ?? '', fileId: row.fileId };
}

/** The stored file a granted document's version carries, read in the page's organization only; else null. */
export async function trustDocumentFile(
  db: Db,
  site: TrustSite,
  fileId: string,
): Promise<{ storageKey: string; name: string; size: number; contentType: string; sha256: string } | null> {
  const [row] = await db
    .select({
      storageKey: storedFiles.storage_key,
      name: storedFiles.name,
      size: storedFiles.size,
      contentType: storedFiles.content_type,
      sha256: storedFiles.sha256,
    })
    .from(storedFiles)
    .where(and(eq(storedFiles.id, fileId), eq(storedFiles.organization_id, site.organizationId)))
    .limit(1);
  return row ?? null;
}

/**
 * The document an approved request's link grants, if `secret` is one of this page's links and has not expired: the
 * link reads that one document of that one organization, only while it is still offered on request.
 */
export async function findTrustDownload(
  db: Db,
  site: TrustSite,
  secret: string,
  now: Date,
): Promise<{ document: TrustDocumentText } | { refusal: PublicLinkRefusal }> {
  if (!isLinkSecretShape(secret)) return { refusal: 'unknown' };
  const hash = await sha256Hex(secret);
  const [row] = await db
    .select({
      secret_hash: trustAccessRequests.secret_hash,
      document_id: trustAccessRequests.document_id,
      link_expires_at: trustAccessRequests.link_expires_at,
    })
    .from(trustAccessRequests)
    .where(
      and(
        eq(trustAccessRequests.secret_hash, hash),
        eq(trustAccessRequests.organization_id, site.organizationId),
        eq(trustAccessRequests.status, 'APPROVED'),
      ),
    )
    .limit(1);
  if (!row?.secret_hash || !constantTimeEqual(row.secret_hash, hash)) return { refusal: 'unknown' };
  if (!row.link_expires_at || row.link_expires_at <= now.toISOString()) return { refusal: 'expired' };
  const document = await chosenDocumentText(db, site, row.document_id, 'ON_REQUEST');
  return document ? { document } : { refusal: 'unknown' };
}

/** The notifications' record kind of a request: they open the page where it is decided. */
export const TRUST_REQUEST_RECORD_KIND = 'trust_access_request';

/** The web page where an organization's owners and admins decide its requests. */
export function trustRequestsPath(organizationId: string): string {
  return `/orgs/${organizationId}/trust#trust-requests`;
}

/**
 * Records a visitor's request for a document the page offers on request (checked by the caller), and in the same
 * batch tells the organization's owners and admins (in the app; by email too when `mail`, to each confirmed address
 * whose preferences keep email on) and enqueues the webhook event `trust_request.created`.
 */
export async function recordAccessRequest(
  db: Db,
  site: TrustSite,
  request: {
    id: string;
    documentId: string;
    documentTitle: string;
    name: string;
    email: string;
    company: string;
  },
  now: Date,
  options: { mail: boolean },
): Promise<void> {
  const at = now.toISOString();
  const org = site.organizationId;
  const title = `Trust page request for ${request.documentTitle}`.slice(0, 200);
  const body = `${request.name} (${request.email}) of ${request.company} asks for "${request.documentTitle}" on the trust page. Approve or reject it on the trust page's settings.`;
  // One row per manager and channel, written by SQL so it costs one statement whatever their number.
  const tell = (channel: 'in_app' | 'email') => sql`
    INSERT INTO notifications (id, event_key, user_id, channel, organization_id, kind, record_kind, record_id, title, body, status, attempts, created_at)
    SELECT 'ntf_' || lower(hex(randomblob(12))), ${`trust_request:${request.id}`}, m.user_id, ${channel}, ${org}, 'trust_request',
      ${TRUST_REQUEST_RECORD_KIND}, ${request.id}, ${title}, ${body}, ${channel === 'email' ? 'pending' : 'delivered'}, 0, ${at}
    FROM ${memberships} m
    WHERE m.organization_id = ${org} AND m.role IN ('OWNER', 'ADMIN')
      ${
        channel === 'email'
          ? sql`AND EXISTS (SELECT 1 FROM ${users} u WHERE u.id = m.user_id AND u.email_verified_at IS NOT NULL)
      AND coalesce((SELECT p.email FROM ${notificationPreferences} p WHERE p.user_id = m.user_id AND p.organization_id = ${org}), 1) = 1`
          : sql``
      }
    ON CONFLICT DO NOTHING`;
  await db.batch([
    db.insert(trustAccessRequests).values({
      id: request.id,
      organization_id: org,
      document_id: request.documentId,
      name: request.name,
      email: request.email,
      company: request.company,
      terms_accepted_at: at,
      status: 'PENDING',
      created_at: at,
    }),
    db.run(tell('in_app')),
    ...(options.mail ? [db.run(tell('email'))] : []),
    enqueueEvent(db, {
      organizationId: org,
      type: 'trust_request.created',
      data: {
        request_id: request.id,
        document_id: request.documentId,
        document_title: request.documentTitle,
        name: request.name,
        email: request.email,
        company: request.company,
      },
      at,
    }),
  ]);
}
