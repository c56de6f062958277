// The trust page's tools: its settings (off by default), which frameworks, audits and documents it shows, and the
// visitors' requests for documents offered on request, which an OWNER or ADMIN approves (a download link, shown once)
// or rejects. The public pages are src/web/public/trust.tsx; what they read is ./site.ts.
import { and, count, eq, gt, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { roleIn } from '../../auth/principal.ts';
import {
  audits,
  documents,
  frameworks,
  organizations,
  trustAccessRequests,
  trustPageItems,
  trustPages,
} from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { queueLinkMail } from '../../notify/link-mail.ts';
import { requireOrganization } from '../access.ts';
import { newLinkSecret } from '../acknowledgements/links.ts';
import { changeAfterWrite } from '../changes.ts';
import {
  caseInsensitiveEnum,
  cursorSchema,
  emailAddress,
  idOf,
  idOfAny,
  longText,
  PAGE_SIZE,
  shortText,
  sizeSchema,
  timestampSchema,
} from '../fields.ts';
import { registerIdKind } from '../id-kinds.ts';
import { countMatches, pageById, pageOutputFields } from '../pagination.ts';
import {
  CHANGED_A_ROW,
  defineTool,
  READ_ANNOTATIONS,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from '../types.ts';
import { TRUST_SLUG_PATTERN, trustDownloadPath, trustPagePath } from './site.ts';

export const TRUST_TOOLSET = 'trust_page';
export const TRUST_VISIBILITIES = ['HIDDEN', 'PUBLIC', 'ON_REQUEST'] as const;
export const TRUST_REQUEST_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export const TRUST_DECISIONS = ['APPROVE', 'REJECT'] as const;
const DAY_MS = 86_400_000;
const MANAGER_ROLES = new Set(['OWNER', 'ADMIN']);

/** The terms a visitor accepts until the organization writes its own. */
export const DEFAULT_REQUEST_TERMS =
  'I will keep the documents confidential, use them only to assess this organization as a supplier, and not pass them on.';

registerIdKind('tar', {
  label: 'trust page access request',
  plural: 'trust page access requests',
  read: 'listTrustAccessRequests',
  list: 'listTrustAccessRequests',
});

const organizationId = idOf('org', 'Organization').describe('The organization (`org_...`).');
const slugSchema = z
  .string()
  .regex(TRUST_SLUG_PATTERN, 'Expected 3..40 lower-case letters, digits and inner hyphens, e.g. acme')
  .describe('The page address /trust/<slug>: 3..40 of a-z, 0-9 and inner hyphens; unique on the service.');

const itemSchema = z
  .object({
    record_id: z.string().describe('The framework, audit or document (`fwk_`, `aud_`, `doc_`).'),
    kind: z.enum(['framework', 'audit', 'document']).describe('framework, audit or document.'),
    access: z
      .enum(['PUBLIC', 'ON_REQUEST'])
      .describe('PUBLIC (shown, readable) or ON_REQUEST (documents only).'),
    name: z.string().describe("The record's name or title."),
  })
  .describe('A record the page shows.');

const trustPageSchema = z
  .object({
    organization_id: z.string().describe('The organization.'),
    enabled: z.boolean().describe('Whether the page is public; false (the default) shows nothing.'),
    slug: z.string().nullable().describe('Its slug, or null before it was ever set.'),
    path: z.string().nullable().describe('Its public path (/trust/<slug>), or null.'),
    title: z.string().describe('Its heading.'),
    introduction: z.string().nullable().describe('Text under the heading, or null.'),
    contact_email: z.string().nullable().describe('The security contact shown, or null.'),
    show_sub_processors: z.boolean().describe('Whether vendors flagged sub_processor are listed.'),
    request_terms: z.string().describe('Terms a visitor accepts to ask for a document.'),
    link_days: z.number().int().describe('Days an approved download link works.'),
    items: z.array(itemSchema).describe('The records shown, by kind then name.'),
    pending_requests: z.number().int().describe('Access requests waiting for a decision.'),
  })
  .describe("An organization's trust page.");

const requestSchema = z
  .object({
    id: z.string().describe('The request (`tar_...`).'),
    organization_id: z.string().describe('Its organization.'),
    document_id: z.string().describe('The document asked for (`doc_...`).'),
    document_title: z.string().describe("The document's title."),
    name: z.string().describe("The visitor's name."),
    email: z.string().describe('Their email address.'),
    company: z.string().describe('Their company.'),
    terms_accepted_at: timestampSchema.describe('When they accepted the terms.'),
    status: z.enum(TRUST_REQUEST_STATUSES).describe('PENDING, APPROVED or REJECTED.'),
    decided_at: timestampSchema.nullable().describe('When decided, or null.'),
    link_expires_at: timestampSchema.nullable().describe('When an approved link stops working, or null.'),
    created_at: timestampSchema.describe('When asked.'),
  })
  .describe("A visitor's request for a document.");

type PageRow = typeof trustPages.$inferSelect;

/** The stored page, or the defaults of one never set (off, no slug, the organization's name as title). */
async function loadPage(ctx: ToolContext, orgId: string): Promise<{ row: PageRow | null; page: PageRow }> {
  const [row] = await ctx.db.select().from(trustPages).where(eq(trustPages.organization_id, orgId)).limit(1);
  if (row) return { row, page: row };
  const [org] = await ctx.db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  if (!org) throw notFound('Organization');
  return {
    row: null,
    page: {
      organization_id: orgId,
      enabled: false,
      slug: '',
      title: org.name,
      introduction: null,
      contact_email: null,
      show_sub_processors: false,
      request_terms: DEFAULT_REQUEST_TERMS,
      link_days: 7,
      created_at: '',
      updated_at: '',
    },
  };
}

/** The page's chosen records with their names, read in the organization (a deleted record drops out). */
async function itemsOf(ctx: ToolContext, orgId: string): Promise<z.input<typeof itemSchema>[]> {
  const base = (kind: 'framework' | 'audit' | 'document') =>
    and(eq(trustPageItems.organization_id, orgId), eq(trustPageItems.kind, kind));
  const [fwk, aud, doc] = await Promise.all([
    ctx.db
      .select({ record_id: trustPageItems.record_id, access: trustPageItems.access, name: frameworks.name })
      .from(trustPageItems)
      .innerJoin(
        frameworks,
        and(eq(frameworks.id, trustPageItems.record_id), eq(frameworks.organization_id, orgId)),
      )
      .where(base('framework'))
      .orderBy(frameworks.name),
    ctx.db
      .select({
        record_id: trustPageItems.record_id,
        access: trustPageItems.access,
        name: sql<string>`coalesce(${audits.name}, ${audits.id})`,
      })
      .from(trustPageItems)
      .innerJoin(audits, and(eq(audits.id, trustPageItems.record_id), eq(audits.organization_id, orgId)))
      .where(base('audit'))
      .orderBy(audits.id),
    ctx.db
      .select({ record_id: trustPageItems.record_id, access: trustPageItems.access, name: documents.title })
      .from(trustPageItems)
      .innerJoin(
        documents,
        and(eq(documents.id, trustPageItems.record_id), eq(documents.organization_id, orgId)),
      )
      .where(base('document'))
      .orderBy(documents.title),
  ]);
  return [
    ...fwk.map((item) => ({ ...item, kind: 'framework' as const })),
    ...aud.map((item) => ({ ...item, kind: 'audit' as const })),
    ...doc.map((item) => ({ ...item, kind: 'document' as const })),
  ];
}

async function presentPage(ctx: ToolContext, page: PageRow): Promise<z.input<typeof trustPageSchema>> {
  const [items, [pending]] = await Promise.all([
    itemsOf(ctx, page.organization_id),
    ctx.db
      .select({ n: count() })
      .from(trustAccessRequests)
      .where(
        and(
          eq(trustAccessRequests.organization_id, page.organization_id),
          eq(trustAccessRequests.status, 'PENDING'),
        ),
      ),
  ]);
  return {
    organization_id: page.organization_id,
    enabled: page.enabled,
    slug: page.slug || null,
    path: page.slug ? trustPagePath(page.slug) : null,
    title: page.title,
    introduction: page.introduction,
    contact_email: page.contact_email,
    show_sub_processors: page.show_sub_processors,
    request_terms: page.request_terms,
    link_days: page.link_days,
    items,
    pending_requests: pending?.n ?? 0,
  };
}

/** Changing what the public sees is for OWNER and ADMIN only. */
function requireManager(ctx: ToolContext, orgId: string, what: string): void {
  requireOrganization(ctx, orgId, 'write');
  if (!MANAGER_ROLES.has(roleIn(ctx.principal, orgId) ?? ''))
    throw new AppError('forbidden', `Only an OWNER or ADMIN of the organization ${what}.`);
}

export const getTrustPageTool = defineTool({
  name: 'getTrustPage',
  title: 'Get the trust page settings',
  description:
    "Read the organization's public trust page: whether it is switched on, its address and contact, which frameworks, audits and policies it shows, whether sub-processors are listed, pending access requests.",
  scope: 'read',
  annotations: READ_ANNOTATIONS,
  toolset: TRUST_TOOLSET,
  input: z.strictObject({ organization_id: organizationId }),
  output: z.object({ trust_page: trustPageSchema }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    const { page } = await loadPage(ctx, input.organization_id);
    return { trust_page: await presentPage(ctx, page) };
  },
});

/** The fields an empty string clears (stored as null). */
const CLEARED_BY_EMPTY = new Set(['introduction', 'contact_email']);

export const updateTrustPageTool = defineTool({
  name: 'updateTrustPage',
  title: 'Update the trust page settings',
  description:
    'Turn the public trust page on or off and set its slug (/trust/<slug>), title, introduction, security contact, whether sub-processors are listed, request terms and link days (OWNER or ADMIN).',
  scope: 'write',
  annotations: UPDATE_ANNOTATIONS,
  toolset: TRUST_TOOLSET,
  input: z.strictObject({
    organization_id: organizationId,
    enabled: z.boolean().optional().describe('true publishes the page; false (default) takes it down.'),
    slug: slugSchema.optional(),
    title: shortText().optional().describe("The page's heading (default: the organization's name)."),
    // An empty string clears (function dialects such as Gemini's refuse a nullable argument).
    introduction: longText(2000).optional().describe('Text under the heading; "" clears it.'),
    contact_email: z
      .union([emailAddress, z.string().max(0)])
      .optional()
      .describe('Security contact shown; "" clears it.'),
    show_sub_processors: z
      .boolean()
      .optional()
      .describe('List the vendors flagged sub_processor (name, category, countries, website).'),
    request_terms: longText(2000, 1).optional().describe('Terms a visitor accepts to ask for a document.'),
    link_days: z.number().int().min(1).max(30).optional().describe('Days an approved link works (1..30).'),
  }),
  output: z.object({ trust_page: trustPageSchema }),
  async run(ctx, input) {
    const { organization_id: orgId, ...changes } = input;
    requireManager(ctx, orgId, 'changes its trust page');
    const { row, page } = await loadPage(ctx, orgId);
    const given = Object.fromEntries(
      Object.entries(changes)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => [key, CLEARED_BY_EMPTY.has(key) && value === '' ? null : value]),
    );
    const next: PageRow = { ...page, ...given } as PageRow;
    if (!next.slug)
      throw new AppError('invalid_arguments', 'Give a slug: the page is served at /trust/<slug>.', {
        field: 'slug',
      });
    if (next.slug !== page.slug) {
      const [taken] = await ctx.db
        .select({ id: trustPages.organization_id })
        .from(trustPages)
        .where(eq(trustPages.slug, next.slug))
        .limit(1);
      if (taken)
        throw new AppError('conflict', `The slug ${next.slug} is taken: choose another.`, { field: 'slug' });
    }
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    for (const key of Object.keys(given) as (keyof PageRow)[]) {
      if (row && row[key] === next[key]) continue;
      before[key] = row ? row[key] : null;
      after[key] = next[key];
    }
    if (row && Object.keys(after).length === 0) return { trust_page: await presentPage(ctx, page) };
    const at = ctx.now().toISOString();
    const stored = { ...next, created_at: row?.created_at || at, updated_at: at };
    const write = row
      ? ctx.db
          .update(trustPages)
          .set(stored)
          .where(and(eq(trustPages.organization_id, orgId), eq(trustPages.updated_at, row.updated_at)))
      : ctx.db.insert(trustPages).values(stored);
    // Two first saves of one slug at once: the unique index keeps one, the seam answers the other a conflict.
    await ctx.db.batch([
      write,
      changeAfterWrite(ctx, {
        tool: 'updateTrustPage',
        kind: 'organization',
        recordId: orgId,
        organizationId: orgId,
        action: 'update',
        before: { trust_page: before },
        after: { trust_page: after },
        at,
      }),
      ...ctx.writeExtras(CHANGED_A_ROW),
    ]);
    const { page: saved } = await loadPage(ctx, orgId);
    return { trust_page: await presentPage(ctx, saved) };
  },
});

const KIND_OF_PREFIX = { fwk: 'framework', aud: 'audit', doc: 'document' } as const;

export const setTrustPageItemTool = defineTool({
  name: 'setTrustPageItem',
  title: 'Show or hide a record on the trust page',
  description:
    'Put a record on the trust page or take it off: a framework or audit PUBLIC or HIDDEN; a policy or report PUBLIC, ON_REQUEST (customers can request it) or HIDDEN. Only chosen records appear (OWNER or ADMIN).',
  scope: 'write',
  annotations: UPDATE_ANNOTATIONS,
  toolset: TRUST_TOOLSET,
  input: z.strictObject({
    organization_id: organizationId,
    record_id: idOfAny(['fwk', 'aud', 'doc'], 'framework, audit or document').describe(
      'The framework, audit or document (`fwk_`, `aud_`, `doc_`).',
    ),
    visibility: caseInsensitiveEnum(TRUST_VISIBILITIES).describe(
      'HIDDEN (off the page), PUBLIC, or ON_REQUEST (documents only: downloaded after approval).',
    ),
  }),
  output: z.object({ trust_page: trustPageSchema }),
  async run(ctx, input) {
    const orgId = input.organization_id;
    requireManager(ctx, orgId, 'chooses what its trust page shows');
    const kind = KIND_OF_PREFIX[input.record_id.slice(0, 3) as keyof typeof KIND_OF_PREFIX];
    const table = { framework: frameworks, audit: audits, document: documents }[kind];
    const [record] = await ctx.db
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.id, input.record_id), eq(table.organization_id, orgId)))
      .limit(1);
    if (!record) throw notFound(kind === 'framework' ? 'Framework' : kind === 'audit' ? 'Audit' : 'Document');
    if (input.visibility === 'ON_REQUEST' && kind !== 'document')
      throw new AppError('invalid_arguments', `ON_REQUEST is for documents; a ${kind} is PUBLIC or HIDDEN.`, {
        field: 'visibility',
      });
    const [current] = await ctx.db
      .select({ access: trustPageItems.access })
      .from(trustPageItems)
      .where(and(eq(trustPageItems.organization_id, orgId), eq(trustPageItems.record_id, input.record_id)))
      .limit(1);
    const was = current?.access ?? 'HIDDEN';
    if (was !== input.visibility) {
      const at = ctx.now().toISOString();
      const key = and(
        eq(trustPageItems.organization_id, orgId),
        eq(trustPageItems.record_id, input.record_id),
      );
      const write =
        input.visibility === 'HIDDEN'
          ? ctx.db.delete(trustPageItems).where(key)
          : ctx.db
              .insert(trustPageItems)
              .values({
                organization_id: orgId,
                record_id: input.record_id,
                kind,
                access: input.visibility,
                created_at: at,
              })
              .onConflictDoUpdate({
                target: [trustPageItems.organization_id, trustPageItems.record_id],
                set: { access: input.visibility },
              });
      await ctx.db.batch([
        write,
        changeAfterWrite(ctx, {
          tool: 'setTrustPageItem',
          kind: 'organization',
          recordId: orgId,
          organizationId: orgId,
          action: 'update',
          before: { trust_page_item: { record_id: input.record_id, visibility: was } },
          after: { trust_page_item: { record_id: input.record_id, visibility: input.visibility } },
          at,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
      ]);
    }
    const { page } = await loadPage(ctx, orgId);
    return { trust_page: await presentPage(ctx, page) };
  },
});

const requestSelection = {
  id: trustAccessRequests.id,
  organization_id: trustAccessRequests.organization_id,
  document_id: trustAccessRequests.document_id,
  document_title: sql<string>`coalesce(${documents.title}, '(deleted document)')`,
  name: trustAccessRequests.name,
  email: trustAccessRequests.email,
  company: trustAccessRequests.company,
  terms_accepted_at: trustAccessRequests.terms_accepted_at,
  status: trustAccessRequests.status,
  decided_at: trustAccessRequests.decided_at,
  link_expires_at: trustAccessRequests.link_expires_at,
  created_at: trustAccessRequests.created_at,
};

const withDocument = and(
  eq(documents.id, trustAccessRequests.document_id),
  eq(documents.organization_id, trustAccessRequests.organization_id),
);

export const listTrustAccessRequestsTool = defineTool({
  name: 'listTrustAccessRequests',
  title: 'List trust page access requests',
  description:
    "List who asked to download documents from the trust page: each visitor's name, email and company, which document, when they asked, and the status (PENDING, APPROVED, REJECTED).",
  scope: 'read',
  annotations: READ_ANNOTATIONS,
  toolset: TRUST_TOOLSET,
  input: z.strictObject({
    organization_id: organizationId,
    filter: z
      .strictObject({
        status: caseInsensitiveEnum(TRUST_REQUEST_STATUSES)
          .optional()
          .describe('PENDING (waiting for a decision), APPROVED or REJECTED.'),
      })
      .default({})
      .describe('Filters, all optional.'),
    size: sizeSchema.default(PAGE_SIZE.default),
    cursor: cursorSchema.optional(),
  }),
  output: z.object({ trust_access_requests: z.array(requestSchema), ...pageOutputFields }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    const where: SQL[] = [eq(trustAccessRequests.organization_id, input.organization_id)];
    if (input.filter.status) where.push(eq(trustAccessRequests.status, input.filter.status));
    const { rows, ...page } = await pageById({
      list: 'listTrustAccessRequests',
      size: input.size,
      cursor: input.cursor,
      read: (afterId, limit) =>
        ctx.db
          .select(requestSelection)
          .from(trustAccessRequests)
          .leftJoin(documents, withDocument)
          .where(and(...where, afterId ? gt(trustAccessRequests.id, afterId) : undefined))
          .orderBy(trustAccessRequests.id)
          .limit(limit),
      countUpTo: (bound) =>
        countMatches(
          ctx.db,
          ctx.db
            .select({ one: sql`1` })
            .from(trustAccessRequests)
            .where(and(...where))
            .limit(bound),
        ),
    });
    return { trust_access_requests: rows, ...page };
  },
});

/** The approval mail's subject and text (never the link: the delivery run adds it). */
function approvalMail(pageTitle: string, documentTitle: string, expiresAt: string) {
  return {
    title: `Your request for ${documentTitle} was approved`.slice(0, 200),
    body: `${pageTitle} approved your request for "${documentTitle}". The link below downloads it until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC; it opens this document only.`,
  };
}

export const decideTrustAccessRequestTool = defineTool({
  name: 'decideTrustAccessRequest',
  title: 'Approve or reject a trust page access request',
  description:
    "Approve or reject a customer's pending request on the trust page for a document or report (OWNER or ADMIN). Approval gives a download link for that document only, expiring after the page's link days: mailed to the requester when the service sends mail, else returned once.",
  scope: 'write',
  annotations: UPDATE_ANNOTATIONS,
  toolset: TRUST_TOOLSET,
  input: z.strictObject({
    id: idOf('tar', 'Trust page access request').describe('The request (`tar_...`).'),
    decision: caseInsensitiveEnum(TRUST_DECISIONS).describe('APPROVE (issues the link) or REJECT.'),
  }),
  output: z.object({
    trust_access_request: requestSchema,
    link_path: z
      .string()
      .nullable()
      .describe(
        'Approved without mail: the download path (prefix the service address), shown once. Else null.',
      ),
    mail_queued: z
      .boolean()
      .describe(
        "True: a mail with the link is queued to the requester's email; the link is never shown here.",
      ),
  }),
  async run(ctx, input) {
    const [found] = await ctx.db
      .select(requestSelection)
      .from(trustAccessRequests)
      .leftJoin(documents, withDocument)
      .where(eq(trustAccessRequests.id, input.id))
      .limit(1);
    if (!found) throw notFound('Trust page access request');
    const orgId = found.organization_id;
    requireOrganization(ctx, orgId, 'write', 'Trust page access request');
    requireManager(ctx, orgId, 'decides access requests');
    if (found.status !== 'PENDING')
      throw new AppError(
        'conflict',
        `This request was already ${found.status.toLowerCase()} on ${String(found.decided_at).slice(0, 10)}.`,
      );
    const { page } = await loadPage(ctx, orgId);
    const now = ctx.now();
    const at = now.toISOString();
    const approve = input.decision === 'APPROVE';
    // When the service mails links, the delivery run issues the secret as it sends: none exists before.
    const mailed = approve && Boolean(ctx.mailLinks);
    const link = approve && !mailed ? await newLinkSecret() : null;
    const expiresAt = approve ? new Date(now.getTime() + page.link_days * DAY_MS).toISOString() : null;
    if (approve && !page.slug)
      throw new AppError('conflict', 'The trust page has no slug yet: set one with updateTrustPage first.');
    const status = approve ? 'APPROVED' : 'REJECTED';
    await ctx.db.batch([
      ctx.db
        .update(trustAccessRequests)
        .set({
          status,
          decided_at: at,
          decided_by_user_id: ctx.principal.userId,
          secret_hash: link?.hash ?? null,
          link_expires_at: expiresAt,
        })
        .where(and(eq(trustAccessRequests.id, input.id), eq(trustAccessRequests.status, 'PENDING'))),
      changeAfterWrite(ctx, {
        tool: 'decideTrustAccessRequest',
        kind: 'organization',
        recordId: orgId,
        organizationId: orgId,
        action: 'update',
        before: { trust_access_request: { id: input.id, status: 'PENDING' } },
        after: { trust_access_request: { id: input.id, status, document_id: found.document_id } },
        at,
      }),
      ...(mailed
        ? [
            queueLinkMail(
              ctx.db,
              {
                organizationId: orgId,
                recordKind: 'trust_access_request',
                recordId: input.id,
                to: found.email,
                ...approvalMail(page.title, found.document_title, expiresAt ?? at),
              },
              at,
            ),
          ]
        : []),
      ...ctx.writeExtras(CHANGED_A_ROW),
    ]);
    const [after] = await ctx.db
      .select(requestSelection)
      .from(trustAccessRequests)
      .leftJoin(documents, withDocument)
      .where(eq(trustAccessRequests.id, input.id))
      .limit(1);
    if (!after || after.decided_at !== at)
      throw new AppError('conflict', 'This request was decided by someone else meanwhile: list it again.');
    return {
      trust_access_request: after,
      link_path: link ? trustDownloadPath(page.slug, link.secret) : null,
      mail_queued: mailed,
    };
  },
});

export const TRUST_PAGE_TOOLS = [
  getTrustPageTool,
  updateTrustPageTool,
  setTrustPageItemTool,
  listTrustAccessRequestsTool,
  decideTrustAccessRequestTool,
];
