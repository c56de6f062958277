// Drizzle schema: accounts and tokens, the tool-call log, and the organization-scoped registers.
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Timestamps are ISO 8601 strings with milliseconds (`toISOString()`), so text order is time order.
const timestamps = {
  created_at: text('created_at').notNull(),
  updated_at: text('updated_at').notNull(),
};

export const organizations = sqliteTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description'),
  /** The organization's settings (src/tools/settings.ts), JSON; a setting left out has its default. */
  settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
  ...timestamps,
});

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    password_hash: text('password_hash').notNull(),
    /** IANA time zone (e.g. `Europe/Paris`) that decides the account's "today" for due and overdue; null = UTC. */
    time_zone: text('time_zone'),
    /**
     * When the person showed they receive mail at `email` (a link sent there, an operator's word, the first account of
     * the instance); null = not yet: such an account cannot accept invitations, approve as a person, nor get mail.
     */
    email_verified_at: text('email_verified_at'),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email)],
);

export const memberships = sqliteTable(
  'memberships',
  {
    organization_id: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id),
    role: text('role', { enum: ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'] }).notNull(),
    /** When the person joined (accepted the invitation, made the organization, or an operator added them). */
    created_at: text('created_at').notNull(),
    /**
     * The member's API tokens and OAuth grants for "all organizations" issued before `created_at` reach this
     * organization too (they chose so when accepting, or made the organization themselves). Without it, only those
     * issued after joining do (src/auth/tokens.ts).
     */
    earlier_tokens: integer('earlier_tokens', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.user_id] }),
    index('memberships_user_idx').on(t.user_id),
  ],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    /** SHA-256 of the secret, hex. The secret itself is never stored. */
    token_hash: text('token_hash').notNull(),
    /** First characters of the secret, shown so a person can tell tokens apart. */
    prefix: text('prefix').notNull(),
    scope: text('scope', { enum: ['read', 'propose', 'read_write'] }).notNull(),
    /** null = every organization the holder belongs to; otherwise a JSON array of organization ids. */
    organization_ids: text('organization_ids', { mode: 'json' }).$type<string[] | null>(),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at'),
    revoked_at: text('revoked_at'),
    last_used_at: text('last_used_at'),
    /** Set on access tokens issued by OAuth: the grant (connected client) they belong to. */
    grant_id: text('grant_id'),
    /** OAuth access tokens: the resource (RFC 8707 audience) they were issued for; null for API tokens. */
    resource: text('resource'),
    /**
     * OAuth access tokens: SHA-256 of the refresh token issued with this one, hex. A replaced refresh token presented
     * again is recognised by it (and ends its grant); a forged one, never issued, is not.
     */
    refresh_hash: text('refresh_hash'),
    /**
     * Tokens for all organizations (`organization_ids` null): they reach the memberships that began at or before this
     * time (the token's creation; an OAuth access token's grant's), and those marked `earlier_tokens`. Null: only those.
     */
    reach_as_of: text('reach_as_of'),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_unique').on(t.token_hash),
    index('api_tokens_user_idx').on(t.user_id, t.created_at),
    index('api_tokens_grant_idx').on(t.grant_id),
  ],
);

/** OAuth clients: registered dynamically (RFC 7591), or known by their metadata document URL once a person consented. */
export const oauthClients = sqliteTable(
  'oauth_clients',
  {
    /** `cli_...` for registered clients; the HTTPS URL of the metadata document otherwise. */
    client_id: text('client_id').primaryKey(),
    kind: text('kind', { enum: ['registered', 'metadata_document'] }).notNull(),
    client_name: text('client_name'),
    client_uri: text('client_uri'),
    redirect_uris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
    token_endpoint_auth_method: text('token_endpoint_auth_method', {
      enum: ['none', 'client_secret_post', 'client_secret_basic'],
    }).notNull(),
    /** SHA-256 of the client secret (confidential registered clients), hex. */
    client_secret_hash: text('client_secret_hash'),
    /** The registration as sent (registered) or the document as fetched (metadata_document), JSON. */
    metadata: text('metadata').notNull(),
    created_at: text('created_at').notNull(),
    /** Metadata documents: when the cached copy must be fetched again. */
    refresh_after: text('refresh_after'),
    /** Registered clients: SHA-256 of the address key the registration came from (limits per address), hex. */
    registered_by: text('registered_by'),
  },
  (t) => [
    index('oauth_clients_created_idx').on(t.kind, t.created_at),
    index('oauth_clients_registered_by_idx').on(t.registered_by, t.created_at),
  ],
);

/** One person's consent to one OAuth client: scope, organizations, resource and expiry; its refresh token. */
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id),
    client_id: text('client_id').notNull(),
    /** The client's name when consent was given (the client record may change or expire from the cache). */
    client_name: text('client_name').notNull(),
    redirect_uri: text('redirect_uri').notNull(),
    scope: text('scope', { enum: ['read', 'propose', 'read_write'] }).notNull(),
    organization_ids: text('organization_ids', { mode: 'json' }).$type<string[] | null>(),
    resource: text('resource').notNull(),
    created_at: text('created_at').notNull(),
    /** The grant (and its refresh token) ends here; access tokens never outlive it. */
    expires_at: text('expires_at').notNull(),
    revoked_at: text('revoked_at'),
    /**
     * SHA-256 of the current refresh token (`cmcpr_<grant id>.<secret>`); null until the code is exchanged. A token
     * naming this grant with another hash was replaced earlier: presenting it means it leaked, and ends the grant.
     */
    refresh_hash: text('refresh_hash'),
  },
  (t) => [
    index('oauth_grants_user_idx').on(t.user_id, t.created_at),
    // The purge of unused clients asks, per client, for its grants.
    index('oauth_grants_client_idx').on(t.client_id, t.created_at),
  ],
);

/** Authorization codes: single use, minutes long, bound to client, redirect URI, PKCE challenge and grant. */
export const oauthCodes = sqliteTable('oauth_codes', {
  /** SHA-256 of the code, hex. */
  code_hash: text('code_hash').primaryKey(),
  grant_id: text('grant_id')
    .notNull()
    .references(() => oauthGrants.id),
  client_id: text('client_id').notNull(),
  redirect_uri: text('redirect_uri').notNull(),
  code_challenge: text('code_challenge').notNull(),
  created_at: text('created_at').notNull(),
  expires_at: text('expires_at').notNull(),
  used_at: text('used_at'),
});

export const sessions = sqliteTable(
  'sessions',
  {
    /** SHA-256 of the session cookie value, hex. */
    id_hash: text('id_hash').primaryKey(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id),
    csrf_token: text('csrf_token').notNull(),
    created_at: text('created_at').notNull(),
    last_seen_at: text('last_seen_at').notNull(),
    expires_at: text('expires_at').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.user_id)],
);

/** Attempts counted by the throttles of src/web/throttle.ts, under keys such as `signin:<email>`. */
export const signInAttempts = sqliteTable(
  'sign_in_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The counter's key (the column's name is older than the keys that are not emails). */
    email: text('email').notNull(),
    /** The client's address (IPv6: its /64) for counters kept per address; '' for the others. */
    client: text('client').notNull().default(''),
    succeeded: integer('succeeded', { mode: 'boolean' }).notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('sign_in_attempts_email_idx').on(t.email, t.created_at),
    index('sign_in_attempts_client_idx').on(t.email, t.client, t.id),
  ],
);

/**
 * Pending invitations to an organization, one per (organization, address). Accepting one (by the invitee, signed in
 * with that address confirmed) makes the membership and deletes the row in one batch; nothing of the organization
 * reaches the invitee before. The link's secret is kept only as its SHA-256.
 */
export const invitations = sqliteTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** Normalized (trimmed, lower case), as users.email. */
    email: text('email').notNull(),
    role: text('role', { enum: ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'] }).notNull(),
    invited_by_user_id: text('invited_by_user_id').notNull(),
    /** SHA-256 of the link's secret, hex. */
    secret_hash: text('secret_hash').notNull(),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('invitations_org_email_unique').on(t.organization_id, t.email),
    uniqueIndex('invitations_secret_unique').on(t.secret_hash),
    index('invitations_email_idx').on(t.email),
  ],
);

/**
 * Single-use, expiring links sent by mail (or printed by the operator's CLI): confirming a sign-up (the account is
 * made only then), confirming an account's address, resetting a password. Only the secret's SHA-256 is kept.
 */
export const accountLinks = sqliteTable(
  'account_links',
  {
    /** SHA-256 of the link's secret, hex. */
    secret_hash: text('secret_hash').primaryKey(),
    purpose: text('purpose', { enum: ['signup', 'verify', 'reset'] }).notNull(),
    /** The address the link was sent to (normalized). */
    email: text('email').notNull(),
    /** verify and reset: the account; null for a sign-up, and for a reset asked for an address without one. */
    user_id: text('user_id'),
    /** signup: what the form said, JSON `{ name, password_hash, organization, next }`. */
    details: text('details', { mode: 'json' }).$type<Record<string, string | null>>(),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at').notNull(),
    used_at: text('used_at'),
  },
  (t) => [index('account_links_email_idx').on(t.email, t.purpose)],
);

export const toolCalls = sqliteTable(
  'tool_calls',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    token_id: text('token_id').notNull(),
    user_id: text('user_id').notNull(),
    tool: text('tool').notNull(),
    surface: text('surface', { enum: ['mcp', 'direct', 'web', 'cli'] }).notNull(),
    organization_id: text('organization_id'),
    /** `ok` or the error code returned. */
    outcome: text('outcome').notNull(),
    duration_ms: integer('duration_ms').notNull(),
    created_at: text('created_at').notNull(),
    /** The call's own id (`cal_...`), also on the record_changes rows its writes made. */
    call_id: text('call_id'),
  },
  (t) => [
    index('tool_calls_token_idx').on(t.token_id, t.created_at),
    index('tool_calls_org_idx').on(t.organization_id, t.created_at),
  ],
);

/**
 * The change history: one row per add, update, delete, link or unlink of a register record, written in the same
 * batch as the change itself. Rows outlive the records they describe (no foreign key on record_id).
 */
export const recordChanges = sqliteTable(
  'record_changes',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    kind: text('kind').notNull(),
    record_id: text('record_id').notNull(),
    action: text('action', { enum: ['add', 'update', 'delete', 'link', 'unlink'] }).notNull(),
    surface: text('surface', { enum: ['mcp', 'direct', 'web', 'cli', 'import', 'link'] }).notNull(),
    /** The user who made it; null only for surface `link`, where a person without an account acted (person_id). */
    user_id: text('user_id'),
    /** The person of the register (`per_...`) who acted through a public signed link; null for changes by a user. */
    person_id: text('person_id'),
    /** The API token (or connected client) used; null for changes made in the web interface or by the operator CLI. */
    token_id: text('token_id'),
    /** The tool call that made the change (tool_calls.call_id). */
    call_id: text('call_id'),
    tool: text('tool').notNull(),
    /** The changed fields' values before the change (null for an add), a JSON object. */
    before: text('before', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    /** The changed fields' values after the change (null for a delete), a JSON object. */
    after: text('after', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    created_at: text('created_at').notNull(),
    /** The proposal (proposals.id) this change applied once a person approved it; null for direct writes. */
    proposal_id: text('proposal_id'),
    /**
     * The record's whole state right after the change (its history-held fields and relation lists, as stored values),
     * read from its row by the same statement, so a read as of a time is one lookup; null for a delete, for kinds
     * without one, and for rows written before it existed (those reads undo the later changes instead).
     */
    state: text('state', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  },
  (t) => [
    index('record_changes_org_idx').on(t.organization_id, t.created_at, t.id),
    index('record_changes_record_idx').on(t.record_id, t.created_at, t.id),
    index('record_changes_token_idx').on(t.token_id, t.created_at),
    index('record_changes_user_idx').on(t.user_id, t.created_at),
    index('record_changes_person_idx').on(t.person_id, t.created_at),
    index('record_changes_call_idx').on(t.call_id),
    // Reads as of a date: a register's deletions (and adds) after a time, without walking the organization's history.
    index('record_changes_kind_action_idx').on(t.organization_id, t.kind, t.action, t.created_at),
  ],
);

// ---- organization-scoped registers -------------------------------------------------------------

const scoped = {
  id: text('id').primaryKey(),
  organization_id: text('organization_id')
    .notNull()
    .references(() => organizations.id),
};

/**
 * A review cycle (src/tools/reviews.ts): the interval in days, the last review and its note, and the next review date
 * (derived from the last review and the interval, or set directly when there is no interval).
 */
export const reviewColumns = () => ({
  review_interval_days: integer('review_interval_days'),
  last_reviewed_on: text('last_reviewed_on'),
  last_review_note: text('last_review_note'),
  next_review_on: text('next_review_on'),
});

export const people = sqliteTable(
  'people',
  {
    ...scoped,
    full_name: text('full_name').notNull(),
    email: text('email').notNull(),
    kind: text('kind').notNull(),
    position: text('position'),
    contract_start_date: text('contract_start_date'),
    contract_end_date: text('contract_end_date'),
    ...timestamps,
  },
  (t) => [
    index('people_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('people_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('people_org_name_idx').on(t.organization_id, t.full_name, t.id),
    index('people_org_kind_idx').on(t.organization_id, t.kind),
    uniqueIndex('people_org_email_unique').on(t.organization_id, t.email),
  ],
);

export const vendors = sqliteTable(
  'vendors',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    category: text('category').notNull(),
    legal_name: text('legal_name'),
    website_url: text('website_url'),
    privacy_policy_url: text('privacy_policy_url'),
    data_processing_agreement_url: text('data_processing_agreement_url'),
    security_page_url: text('security_page_url'),
    certifications: text('certifications', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    countries: text('countries', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    business_owner_id: text('business_owner_id'),
    security_owner_id: text('security_owner_id'),
    tier: text('tier'),
    data_access: text('data_access'),
    status: text('status').notNull().default('ACTIVE'),
    contract_start_on: text('contract_start_on'),
    contract_end_on: text('contract_end_on'),
    renewal_on: text('renewal_on'),
    sub_processor: integer('sub_processor', { mode: 'boolean' }).notNull().default(false),
    /** The latest expiry of its assessments (triggers on vendor_assessments keep it); null: never assessed. */
    assessed_until: text('assessed_until'),
    /** Random per update: the batch's risk_ids statements run only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...reviewColumns(),
    ...timestamps,
  },
  (t) => [
    index('vendors_org_status_idx').on(t.organization_id, t.status),
    index('vendors_org_renewal_idx').on(t.organization_id, t.renewal_on, t.id),
    // Vendors due for assessment (none, or every one expired): a range of this index, never a walk of the vendors.
    index('vendors_org_assessed_idx').on(t.organization_id, t.assessed_until, t.id),
    // filter.assessment_due_before reads `coalesce(assessed_until, '') < day`: one range of this index, never assessed
    // (null, first as '') included, where `is null or <` read every entry of the organization in the one above.
    index('vendors_org_assessment_due_idx').on(
      t.organization_id,
      sql`coalesce(${t.assessed_until}, '')`,
      t.id,
    ),
    index('vendors_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
    index('vendors_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('vendors_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('vendors_org_name_idx').on(t.organization_id, t.name, t.id),
    index('vendors_org_category_idx').on(t.organization_id, t.category),
  ],
);

export const vendorRisks = sqliteTable(
  'vendor_risks',
  {
    vendor_id: text('vendor_id').notNull(),
    risk_id: text('risk_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.vendor_id, t.risk_id] }), index('vendor_risks_risk_idx').on(t.risk_id)],
);

/** A vendor's assessments, oldest first: each kept, never overwritten; the latest expiry says when one is due. */
export const vendorAssessments = sqliteTable(
  'vendor_assessments',
  {
    ...scoped,
    vendor_id: text('vendor_id').notNull(),
    assessed_on: text('assessed_on').notNull(),
    assessor_id: text('assessor_id').notNull(),
    result: text('result').notNull(),
    tier: text('tier').notNull(),
    expires_on: text('expires_on').notNull(),
    summary: text('summary'),
    ...timestamps,
  },
  (t) => [
    index('vendor_assessments_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('vendor_assessments_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('vendor_assessments_org_expires_idx').on(t.organization_id, t.expires_on, t.id),
    index('vendor_assessments_org_assessed_idx').on(t.organization_id, t.assessed_on, t.id),
    index('vendor_assessments_org_assessor_idx').on(t.organization_id, t.assessor_id),
    index('vendor_assessments_vendor_idx').on(t.vendor_id, t.expires_on),
  ],
);

export const risks = sqliteTable(
  'risks',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    category: text('category').notNull(),
    status: text('status').notNull(),
    treatment: text('treatment').notNull(),
    owner_id: text('owner_id'),
    inherent_likelihood: integer('inherent_likelihood').notNull(),
    inherent_impact: integer('inherent_impact').notNull(),
    inherent_score: integer('inherent_score').notNull(),
    residual_likelihood: integer('residual_likelihood').notNull(),
    residual_impact: integer('residual_impact').notNull(),
    residual_score: integer('residual_score').notNull(),
    /** Levels of the scores by the organization's risk method (src/tools/risk-method.ts), re-derived when it changes. */
    inherent_level: text('inherent_level').notNull().default('low'),
    residual_level: text('residual_level').notNull().default('low'),
    /** The residual level is above the method's appetite (re-derived with the levels). */
    above_appetite: integer('above_appetite', { mode: 'boolean' }).notNull().default(false),
    note: text('note'),
    /**
     * The latest risk acceptance not revoked (risk_acceptances): its expiry and the score it accepted. Kept by
     * triggers (migrations/0026_risk_acceptance_backfill.sql), never written by the tools.
     */
    accepted_until: text('accepted_until'),
    accepted_score: integer('accepted_score'),
    ...reviewColumns(),
    ...timestamps,
  },
  (t) => [
    index('risks_org_level_idx').on(t.organization_id, t.residual_level),
    index('risks_org_appetite_idx').on(t.organization_id, t.above_appetite, t.residual_score),
    index('risks_org_accepted_idx').on(t.organization_id, t.status, t.accepted_until),
    index('risks_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
    index('risks_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('risks_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('risks_org_name_idx').on(t.organization_id, t.name, t.id),
    index('risks_org_residual_idx').on(t.organization_id, t.residual_score, t.id),
    index('risks_org_inherent_idx').on(t.organization_id, t.inherent_score, t.id),
    index('risks_org_status_idx').on(t.organization_id, t.status),
    index('risks_org_treatment_idx').on(t.organization_id, t.treatment),
    index('risks_org_owner_idx').on(t.organization_id, t.owner_id),
    // Covers the heat map's grouped count (and the exact likelihood/impact filters) without reading the rows.
    index('risks_org_heat_idx').on(
      t.organization_id,
      t.inherent_likelihood,
      t.inherent_impact,
      t.residual_likelihood,
      t.residual_impact,
      t.status,
    ),
  ],
);

export const measures = sqliteTable(
  'measures',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    category: text('category').notNull(),
    state: text('state').notNull(),
    owner_id: text('owner_id'),
    ...reviewColumns(),
    /** What readiness expects (src/tools/readiness.ts): current evidence (1) or not (0, the meaning before it). */
    evidence_required: integer('evidence_required', { mode: 'boolean' }).notNull().default(false),
    /** Tested every this many days (control tests); null: not tested periodically. */
    test_interval_days: integer('test_interval_days'),
    /** Kept by triggers from control_tests: the latest test's day and result, and when the next one is due. */
    last_tested_on: text('last_tested_on'),
    last_test_result: text('last_test_result'),
    next_test_on: text('next_test_on'),
    /**
     * Kept by triggers from evidence and evidence_records (src/tools/readiness.ts): the latest valid_until of the
     * measure's current evidence ('9999-12-31' when one never expires); null when it has none.
     */
    evidence_until: text('evidence_until'),
    /**
     * Kept by triggers from documents and document_measures: covering documents not retired with no version in force.
     * Null on a new measure (the register's insert names every column), read as 0.
     */
    unapproved_documents: integer('unapproved_documents').default(0),
    /**
     * Kept by triggers from the columns above (migration 0043): 1 when the measure is not ready whatever the day
     * (not IMPLEMENTED, evidence missing, a document not in force, never tested, last test not effective), and the
     * last day it stays ready otherwise (its evidence's expiry or its next test; '9999-12-31' when neither).
     */
    readiness_blocked: integer('readiness_blocked'),
    ready_until: text('ready_until'),
    ...timestamps,
  },
  (t) => [
    index('measures_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
    index('measures_org_test_idx').on(t.organization_id, t.next_test_on, t.id),
    index('measures_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('measures_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('measures_org_name_idx').on(t.organization_id, t.name, t.id),
    index('measures_org_state_idx').on(t.organization_id, t.state),
    index('measures_org_owner_idx').on(t.organization_id, t.owner_id),
    // "Implemented but not ready" and the summary's readiness counts read this index alone.
    index('measures_org_readiness_idx').on(t.organization_id, t.state, t.readiness_blocked, t.ready_until),
  ],
);

export const riskMeasures = sqliteTable(
  'risk_measures',
  {
    risk_id: text('risk_id').notNull(),
    measure_id: text('measure_id').notNull(),
    organization_id: text('organization_id').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.risk_id, t.measure_id] }),
    index('risk_measures_measure_idx').on(t.measure_id),
  ],
);

/**
 * A test of a measure (`ctt_...`): who tested it, when, the period it covers, how (method, sample) and the result; an
 * exception may raise a nonconformity. The latest test of a measure is kept on it (measures.last_tested_on & co).
 */
export const controlTests = sqliteTable(
  'control_tests',
  {
    ...scoped,
    measure_id: text('measure_id').notNull(),
    tester_id: text('tester_id').notNull(),
    tested_on: text('tested_on').notNull(),
    period_from: text('period_from'),
    period_to: text('period_to'),
    method: text('method').notNull(),
    sample: text('sample'),
    result: text('result').notNull(),
    notes: text('notes'),
    nonconformity_id: text('nonconformity_id'),
    ...timestamps,
  },
  (t) => [
    index('control_tests_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('control_tests_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('control_tests_org_tested_idx').on(t.organization_id, t.tested_on, t.id),
    index('control_tests_org_result_idx').on(t.organization_id, t.result),
    index('control_tests_org_tester_idx').on(t.organization_id, t.tester_id),
    index('control_tests_org_nonconformity_idx').on(t.organization_id, t.nonconformity_id),
    index('control_tests_measure_idx').on(t.measure_id, t.tested_on),
  ],
);

/**
 * A risk's formal acceptance: who approved it (a person), why, the level and score accepted, from when and until
 * when; revoked_on ends it early. The latest one not revoked is the risk's current acceptance (risks.accepted_until).
 */
export const riskAcceptances = sqliteTable(
  'risk_acceptances',
  {
    ...scoped,
    risk_id: text('risk_id').notNull(),
    approver_id: text('approver_id').notNull(),
    rationale: text('rationale').notNull(),
    accepted_level: text('accepted_level').notNull(),
    accepted_score: integer('accepted_score').notNull(),
    accepted_on: text('accepted_on').notNull(),
    expires_on: text('expires_on').notNull(),
    revoked_on: text('revoked_on'),
    revocation_reason: text('revocation_reason'),
    note: text('note'),
    /** Random per update: a revocation re-opens its risk only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('risk_acceptances_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('risk_acceptances_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('risk_acceptances_org_expires_idx').on(t.organization_id, t.expires_on, t.id),
    index('risk_acceptances_org_approver_idx').on(t.organization_id, t.approver_id),
    index('risk_acceptances_risk_idx').on(t.risk_id, t.accepted_on),
  ],
);

export const obligations = sqliteTable(
  'obligations',
  {
    ...scoped,
    area: text('area'),
    source: text('source'),
    requirement: text('requirement').notNull(),
    regulator: text('regulator'),
    type: text('type').notNull(),
    status: text('status').notNull(),
    owner_id: text('owner_id'),
    last_review_date: text('last_review_date'),
    due_date: text('due_date'),
    /** The team's own key, e.g. "OBL-012": unique in the organization when given. */
    reference: text('reference'),
    ...timestamps,
  },
  (t) => [
    index('obligations_org_reference_idx').on(t.organization_id, t.reference),
    index('obligations_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('obligations_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('obligations_org_due_idx').on(t.organization_id, t.due_date, t.id),
    index('obligations_org_status_idx').on(t.organization_id, t.status, t.due_date),
    index('obligations_org_owner_idx').on(t.organization_id, t.owner_id),
  ],
);

export const frameworks = sqliteTable(
  'frameworks',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    version: text('version'),
    /** The built-in catalogue it was adopted from (src/catalogs/<key>.json), and that file's revision; null if none. */
    catalog_key: text('catalog_key'),
    catalog_revision: integer('catalog_revision'),
    ...timestamps,
  },
  (t) => [
    index('frameworks_org_catalog_idx').on(t.organization_id, t.catalog_key),
    index('frameworks_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('frameworks_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('frameworks_org_name_idx').on(t.organization_id, t.name, t.id),
  ],
);

/**
 * A framework's requirements (controls, clauses, criteria) as a tree: sections (is_section) group requirements,
 * a control's enhancements hang under it. implementation_status is kept by triggers from the linked measures
 * (migrations/0006_requirements.sql), never written by the tools.
 */
export const requirements = sqliteTable(
  'requirements',
  {
    ...scoped,
    framework_id: text('framework_id').notNull(),
    reference: text('reference').notNull(),
    /** The reference with its numbers zero-padded (A.5.9 before A.5.10): the document order of a framework. */
    reference_key: text('reference_key').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    parent_id: text('parent_id'),
    /** The top-level section it sits under (its own id's ancestor without a parent); null at the top level. */
    section_id: text('section_id'),
    is_section: integer('is_section', { mode: 'boolean' }).notNull(),
    position: integer('position'),
    applicability: text('applicability').notNull(),
    justification: text('justification'),
    /** Why it is in the statement of applicability: LEGAL, CONTRACTUAL, RISK_ASSESSMENT, BEST_PRACTICE (JSON list). */
    inclusion_reasons: text('inclusion_reasons', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    implementation_status: text('implementation_status'),
    /**
     * Kept by triggers from the mapped measures (migration 0043): how many are not NOT_APPLICABLE, how many of those
     * are blocked, and the earliest ready_until among them (null when none); null on a new requirement, read as 0.
     */
    readiness_measures: integer('readiness_measures'),
    readiness_blocked: integer('readiness_blocked'),
    ready_until: text('ready_until'),
    /** Random per update: the batch's statements for a moved subtree run only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...reviewColumns(),
    ...timestamps,
  },
  (t) => [
    index('requirements_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
    index('requirements_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('requirements_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('requirements_org_reference_idx').on(t.organization_id, t.reference_key, t.id),
    index('requirements_org_title_idx').on(t.organization_id, t.title, t.id),
    index('requirements_org_position_idx').on(t.organization_id, t.position, t.id),
    uniqueIndex('requirements_framework_reference_idx').on(t.framework_id, t.reference),
    index('requirements_framework_order_idx').on(t.framework_id, t.reference_key, t.id),
    index('requirements_framework_coverage_idx').on(
      t.framework_id,
      t.section_id,
      t.is_section,
      t.applicability,
      t.implementation_status,
    ),
    index('requirements_org_coverage_idx').on(
      t.organization_id,
      t.framework_id,
      t.is_section,
      t.applicability,
      t.implementation_status,
    ),
    index('requirements_parent_idx').on(t.parent_id),
    // Coverage's readiness counts read this index alone (every column they test is in it).
    index('requirements_framework_readiness_idx').on(
      t.framework_id,
      t.is_section,
      t.applicability,
      t.implementation_status,
      t.readiness_blocked,
      t.readiness_measures,
      t.ready_until,
    ),
  ],
);

/** Which measures cover which requirements (many to many, one organization). */
export const requirementMeasures = sqliteTable(
  'requirement_measures',
  {
    requirement_id: text('requirement_id').notNull(),
    measure_id: text('measure_id').notNull(),
    organization_id: text('organization_id').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.requirement_id, t.measure_id] }),
    index('requirement_measures_measure_idx').on(t.measure_id),
  ],
);

/**
 * Mappings the crosswalks propose (src/tools/catalogs/proposals.ts): a measure that covers `source_requirement_id`
 * may cover `requirement_id` too (of another framework, with the crosswalk's relationship read from the source). A
 * person or an assistant accepts (the link is made) or rejects it; one proposal per measure and target, ever.
 * Deleting the measure or either requirement deletes it (triggers, migrations/0021_mapping_proposal_triggers.sql).
 */
export const mappingProposals = sqliteTable(
  'mapping_proposals',
  {
    ...scoped,
    measure_id: text('measure_id').notNull(),
    requirement_id: text('requirement_id').notNull(),
    /** The target's framework, for a framework's proposals in one index range. */
    framework_id: text('framework_id').notNull(),
    source_requirement_id: text('source_requirement_id').notNull(),
    relationship: text('relationship', { enum: ['equal', 'subset', 'superset', 'intersects'] }).notNull(),
    status: text('status', { enum: ['PROPOSED', 'ACCEPTED', 'REJECTED'] }).notNull(),
    /** Who decided (a user id) and when; null while PROPOSED. */
    decided_by: text('decided_by'),
    decided_at: text('decided_at'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('mapping_proposals_measure_requirement_idx').on(t.measure_id, t.requirement_id),
    index('mapping_proposals_org_framework_idx').on(t.organization_id, t.framework_id, t.status, t.id),
    index('mapping_proposals_org_status_idx').on(t.organization_id, t.status, t.id),
    index('mapping_proposals_requirement_idx').on(t.requirement_id),
    index('mapping_proposals_source_idx').on(t.source_requirement_id),
  ],
);

export const assets = sqliteTable(
  'assets',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    asset_type: text('asset_type').notNull(),
    amount: integer('amount').notNull(),
    owner_id: text('owner_id'),
    data_types_stored: text('data_types_stored'),
    /** Random per update: the batch's vendor_ids statements run only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('assets_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('assets_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('assets_org_name_idx').on(t.organization_id, t.name, t.id),
    index('assets_org_type_idx').on(t.organization_id, t.asset_type),
    index('assets_org_owner_idx').on(t.organization_id, t.owner_id),
  ],
);

export const assetVendors = sqliteTable(
  'asset_vendors',
  {
    asset_id: text('asset_id').notNull(),
    vendor_id: text('vendor_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.asset_id, t.vendor_id] }),
    index('asset_vendors_vendor_idx').on(t.vendor_id),
  ],
);

export const dataClassifications = sqliteTable(
  'data_classifications',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    classification: text('classification').notNull(),
    owner_id: text('owner_id'),
    /** Random per update: the batch's vendor_ids statements run only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('data_classifications_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('data_classifications_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('data_classifications_org_name_idx').on(t.organization_id, t.name, t.id),
    index('data_classifications_org_class_idx').on(t.organization_id, t.classification),
    index('data_classifications_org_owner_idx').on(t.organization_id, t.owner_id),
  ],
);

export const dataClassificationVendors = sqliteTable(
  'data_classification_vendors',
  {
    data_classification_id: text('data_classification_id').notNull(),
    vendor_id: text('vendor_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.data_classification_id, t.vendor_id] }),
    index('data_classification_vendors_vendor_idx').on(t.vendor_id),
  ],
);

export const audits = sqliteTable(
  'audits',
  {
    ...scoped,
    framework_id: text('framework_id').notNull(),
    name: text('name'),
    state: text('state').notNull(),
    valid_from: text('valid_from'),
    valid_until: text('valid_until'),
    auditor: text('auditor'),
    scope: text('scope'),
    /** The team's own key, e.g. "AUD-2026-01": unique in the organization when given. */
    reference: text('reference'),
    audit_type: text('audit_type'),
    planned_start_on: text('planned_start_on'),
    planned_end_on: text('planned_end_on'),
    actual_start_on: text('actual_start_on'),
    actual_end_on: text('actual_end_on'),
    /** A SOC 2 Type II examination's period of operation. */
    observation_start_on: text('observation_start_on'),
    observation_end_on: text('observation_end_on'),
    lead_auditor_id: text('lead_auditor_id'),
    /** The audit report, a stored file of the organization (`fil_...`): kept by file upkeep (src/files/referrers.ts). */
    report_file_id: text('report_file_id'),
    /** Random per update: the batch's requirement_ids statements run only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('audits_org_reference_idx').on(t.organization_id, t.reference),
    index('audits_report_file_idx').on(t.report_file_id),
    index('audits_org_type_idx').on(t.organization_id, t.audit_type, t.planned_start_on),
    index('audits_org_lead_idx').on(t.organization_id, t.lead_auditor_id),
    index('audits_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('audits_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('audits_org_valid_until_idx').on(t.organization_id, t.valid_until, t.id),
    index('audits_org_state_idx').on(t.organization_id, t.state),
    index('audits_org_framework_idx').on(t.organization_id, t.framework_id),
  ],
);

export const nonconformities = sqliteTable(
  'nonconformities',
  {
    ...scoped,
    reference_id: text('reference_id').notNull(),
    description: text('description'),
    audit_id: text('audit_id'),
    date_identified: text('date_identified'),
    root_cause: text('root_cause'),
    corrective_action: text('corrective_action'),
    owner_id: text('owner_id'),
    due_date: text('due_date'),
    status: text('status').notNull(),
    effectiveness_check: text('effectiveness_check'),
    /** The effectiveness check of the corrective action: when, by whom (a person), with what result. */
    effectiveness_checked_on: text('effectiveness_checked_on'),
    effectiveness_checked_by_id: text('effectiveness_checked_by_id'),
    effectiveness_result: text('effectiveness_result'),
    /** MAJOR, MINOR, OBSERVATION or OPPORTUNITY_FOR_IMPROVEMENT, as the audit graded it. */
    grade: text('grade'),
    /** The clause or control it is against, e.g. "9.2.2" or "A.5.18". */
    clause: text('clause'),
    /** Random per update: the batch's requirement_ids and risk_ids statements run only if this update landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('nonconformities_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('nonconformities_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('nonconformities_org_reference_idx').on(t.organization_id, t.reference_id, t.id),
    index('nonconformities_org_due_idx').on(t.organization_id, t.due_date, t.id),
    index('nonconformities_org_status_idx').on(t.organization_id, t.status, t.due_date),
    index('nonconformities_org_audit_idx').on(t.organization_id, t.audit_id),
    index('nonconformities_org_grade_idx').on(t.organization_id, t.grade, t.status),
    index('nonconformities_org_owner_idx').on(t.organization_id, t.owner_id),
    index('nonconformities_org_checked_by_idx').on(t.organization_id, t.effectiveness_checked_by_id),
  ],
);

/** An audit's scope: the requirements it audits (ISO 27001 9.2.2: the programme covers every applicable one). */
export const auditRequirements = sqliteTable(
  'audit_requirements',
  {
    audit_id: text('audit_id').notNull(),
    requirement_id: text('requirement_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.audit_id, t.requirement_id] }),
    index('audit_requirements_requirement_idx').on(t.requirement_id),
  ],
);

/**
 * An audit's checklist: the result for one requirement in its scope (CONFORMING ... NOT_AUDITED), with notes, an
 * evidence item and the nonconformity it raised. Rows go with their audit or requirement (triggers of migration 0046).
 */
export const auditChecklistResults = sqliteTable(
  'audit_checklist_results',
  {
    audit_id: text('audit_id').notNull(),
    requirement_id: text('requirement_id').notNull(),
    organization_id: text('organization_id').notNull(),
    result: text('result').notNull(),
    notes: text('notes'),
    evidence_id: text('evidence_id'),
    nonconformity_id: text('nonconformity_id'),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.audit_id, t.requirement_id] }),
    index('audit_checklist_results_requirement_idx').on(t.requirement_id, t.result),
    index('audit_checklist_results_nonconformity_idx').on(t.nonconformity_id),
    index('audit_checklist_results_evidence_idx').on(t.evidence_id),
  ],
);

/** A finding's links: the requirements it is against and the risks it bears on. */
export const nonconformityRequirements = sqliteTable(
  'nonconformity_requirements',
  {
    nonconformity_id: text('nonconformity_id').notNull(),
    requirement_id: text('requirement_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.nonconformity_id, t.requirement_id] }),
    index('nonconformity_requirements_requirement_idx').on(t.requirement_id),
  ],
);
export const nonconformityRisks = sqliteTable(
  'nonconformity_risks',
  {
    nonconformity_id: text('nonconformity_id').notNull(),
    risk_id: text('risk_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.nonconformity_id, t.risk_id] }),
    index('nonconformity_risks_risk_idx').on(t.risk_id),
  ],
);

export const continualImprovements = sqliteTable(
  'continual_improvements',
  {
    ...scoped,
    reference_id: text('reference_id').notNull(),
    description: text('description'),
    source: text('source'),
    owner_id: text('owner_id'),
    target_date: text('target_date'),
    status: text('status').notNull(),
    priority: text('priority').notNull(),
    ...timestamps,
  },
  (t) => [
    index('continual_improvements_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('continual_improvements_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('continual_improvements_org_reference_idx').on(t.organization_id, t.reference_id, t.id),
    index('continual_improvements_org_target_idx').on(t.organization_id, t.target_date, t.id),
    index('continual_improvements_org_status_idx').on(t.organization_id, t.status),
    index('continual_improvements_org_priority_idx').on(t.organization_id, t.priority),
    index('continual_improvements_org_owner_idx').on(t.organization_id, t.owner_id),
  ],
);

// ---- idempotent writes -------------------------------------------------------------------------

/**
 * A write called with an idempotency key (src/surfaces/idempotency.ts): its row is inserted in the write's own batch,
 * so of two calls with one key exactly one write commits (the primary key refuses the other's whole batch); its
 * answer is stored right after the batch. A retry within 24 hours gets that answer and writes nothing.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    /** Keys are the token holder's own: another user's identical key is another key. */
    user_id: text('user_id').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the tool, its normalised arguments and the user: the same key with other arguments is refused. */
    request_hash: text('request_hash').notNull(),
    tool: text('tool').notNull(),
    organization_id: text('organization_id'),
    /** The call that wrote (tool_calls.call_id, record_changes.call_id). */
    call_id: text('call_id').notNull(),
    /** The tool's result, a JSON object; null until stored after the batch (or if the host stopped in between). */
    answer: text('answer'),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.user_id, t.key] }),
    index('idempotency_keys_expires_idx').on(t.expires_at),
  ],
);

// ---- notifications ------------------------------------------------------------------------------

/**
 * What an account hears about in one organization, and its time zone. No row = the defaults
 * (src/notify/preferences.ts).
 */
export const notificationPreferences = sqliteTable(
  'notification_preferences',
  {
    user_id: text('user_id')
      .notNull()
      .references(() => users.id),
    organization_id: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    assigned: integer('assigned', { mode: 'boolean' }).notNull(),
    due_soon: integer('due_soon', { mode: 'boolean' }).notNull(),
    /** "Due soon" means due within this many days (the person's today included). */
    due_days: integer('due_days').notNull(),
    overdue: integer('overdue', { mode: 'boolean' }).notNull(),
    owned_changes: integer('owned_changes', { mode: 'boolean' }).notNull(),
    digest: integer('digest', { mode: 'boolean' }).notNull(),
    /** Local hour (0-23) from which the day's digest is made. */
    digest_hour: integer('digest_hour').notNull(),
    /** Also by email (when the host has SMTP settings); in-app always. */
    email: integer('email', { mode: 'boolean' }).notNull(),
    /** IANA time zone, e.g. Europe/Paris. */
    time_zone: text('time_zone').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.organization_id] })],
);

/**
 * One row per (event, recipient, channel), written before anything is sent: the unique key makes every event
 * notify each account at most once per channel, whichever process or run finds it.
 */
export const notifications = sqliteTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    /** What happened, e.g. `change:chg_...`, `overdue:obligation:obl_...:2026-05-01`, `digest:org_...:2026-05-02`. */
    event_key: text('event_key').notNull(),
    /** The account told; null only for a link mail (kind `link`), which goes to to_address. */
    user_id: text('user_id'),
    channel: text('channel', { enum: ['in_app', 'email'] }).notNull(),
    organization_id: text('organization_id').notNull(),
    kind: text('kind', {
      enum: [
        'assigned',
        'due_soon',
        'overdue',
        'owned_change',
        'digest',
        'link',
        'proposal_decided',
        'proposal_expired',
        'trust_request',
      ],
    }).notNull(),
    /**
     * A link mail's recipient (a person of the register or a vendor's contact, no account). The row never holds the
     * link: the delivery run issues a fresh one (only its hash is stored, on the record) right before sending.
     */
    to_address: text('to_address'),
    /** The person (people.id) the event reached the account through, if any: none once that person is deleted. */
    person_id: text('person_id'),
    record_kind: text('record_kind'),
    record_id: text('record_id'),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /**
     * in_app: `delivered`. email: `pending` -> `sending` (claimed by one run) -> `sent`; `pending` again after a
     * refused send, `failed` after the last attempt, `skipped` (recipient left), `unknown` (a run stopped between
     * sending and marking it: never sent again).
     */
    status: text('status', {
      enum: ['delivered', 'pending', 'sending', 'sent', 'failed', 'skipped', 'unknown'],
    }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    last_error: text('last_error'),
    created_at: text('created_at').notNull(),
    claimed_at: text('claimed_at'),
    sent_at: text('sent_at'),
    read_at: text('read_at'),
  },
  (t) => [
    uniqueIndex('notifications_event_unique').on(t.event_key, t.user_id, t.channel),
    index('notifications_user_idx').on(t.user_id, t.channel, t.created_at),
    index('notifications_status_idx').on(t.channel, t.status, t.created_at),
  ],
);

/** Where each source of notifications got to (e.g. the change history, by created_at). */
export const notificationCursors = sqliteTable('notification_cursors', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  updated_at: text('updated_at').notNull(),
});

// ---- documents: policies, procedures, standards and plans, with their versions -------------------------------

export const documents = sqliteTable(
  'documents',
  {
    ...scoped,
    title: text('title').notNull(),
    type: text('type').notNull(),
    owner_id: text('owner_id'),
    status: text('status').notNull(),
    /** The number of the document's latest version (the one content edits change). */
    version: integer('version').notNull(),
    /** The number of the version published and in force now; null when none is. */
    published_version: integer('published_version'),
    content: text('content'),
    /** The stored file (`fil_...`) of the latest version, as its version row holds it. */
    file_id: text('file_id'),
    /** A generated document's machine-readable copy (JSON, a stored file) of the latest version. */
    data_file_id: text('data_file_id'),
    /**
     * What the service generates this document from (src/tools/controlled-outputs.ts), e.g.
     * `statement_of_applicability:fwk_...`; null for a document people write.
     */
    source: text('source'),
    /** How many of its approvers approve a version: ANY (one), ALL, or QUORUM (approvals_required of them). */
    approval_rule: text('approval_rule').notNull().default('ANY'),
    /** With QUORUM, how many approvers' approvals a version needs; null otherwise. */
    approvals_required: integer('approvals_required'),
    /** The latest version is a major change: under the setting reacknowledge_on MAJOR_ONLY, publishing it asks again. */
    major_change: integer('major_change', { mode: 'boolean' }).notNull().default(false),
    ...reviewColumns(),
    /** Random per update: the batch's relation and version statements run only if this update landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('documents_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('documents_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('documents_org_title_idx').on(t.organization_id, t.title, t.id),
    index('documents_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
    index('documents_org_status_idx').on(t.organization_id, t.status),
    index('documents_org_type_idx').on(t.organization_id, t.type),
    index('documents_org_owner_idx').on(t.organization_id, t.owner_id),
    index('documents_org_source_idx').on(t.organization_id, t.source),
  ],
);

/**
 * Every version of a document: its content as it was, its state, its approval (who, when) and when it came into and
 * went out of force. An APPROVED or PUBLISHED version is never edited; a content change starts the next number.
 */
export const documentVersions = sqliteTable(
  'document_versions',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    document_id: text('document_id').notNull(),
    number: integer('number').notNull(),
    status: text('status').notNull(),
    content: text('content'),
    /** A stored file (`fil_...`) attached to this version. */
    file_id: text('file_id'),
    /** A generated version's machine-readable copy (JSON, a stored file). */
    data_file_id: text('data_file_id'),
    /** The approver (a person, `per_...`) and the account that approved it. */
    approved_by_id: text('approved_by_id'),
    approved_by_user_id: text('approved_by_user_id'),
    approved_at: text('approved_at'),
    published_at: text('published_at'),
    superseded_at: text('superseded_at'),
    retired_at: text('retired_at'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('document_versions_document_number_unique').on(t.document_id, t.number),
    index('document_versions_org_idx').on(t.organization_id),
  ],
);

/** A request that people acknowledge (read and accept) one version of a document. */
export const acknowledgementRequests = sqliteTable(
  'acknowledgement_requests',
  {
    ...scoped,
    document_id: text('document_id').notNull(),
    version_number: integer('version_number').notNull(),
    /** Who was asked: ALL (the whole people register), KIND (people of some kinds) or PEOPLE (a list). */
    audience: text('audience').notNull(),
    due_date: text('due_date'),
    requested_by_user_id: text('requested_by_user_id'),
    /** The evidence item written when every person it asked had acknowledged (for the document's requirements). */
    evidence_id: text('evidence_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [index('acknowledgement_requests_org_document_idx').on(t.organization_id, t.document_id)],
);

/**
 * One person's acknowledgement of a document version, pending until acknowledged_at is set. The mailed link's secret is
 * kept as its SHA-256 only; it grants acknowledging this version and reading its content, nothing else.
 */
export const acknowledgements = sqliteTable(
  'acknowledgements',
  {
    ...scoped,
    request_id: text('request_id').notNull(),
    document_id: text('document_id').notNull(),
    version_number: integer('version_number').notNull(),
    person_id: text('person_id').notNull(),
    secret_hash: text('secret_hash'),
    link_expires_at: text('link_expires_at'),
    /** When the person acknowledged, and how: LINK (the mailed link), WEB (signed in), TOKEN (an API call). */
    acknowledged_at: text('acknowledged_at'),
    method: text('method'),
    reminded_at: text('reminded_at'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('acknowledgements_request_person_unique').on(t.request_id, t.person_id),
    uniqueIndex('acknowledgements_secret_unique').on(t.secret_hash),
    // "Who has not acknowledged v3": the version's pending rows in id order, the list's order, read page by page.
    index('acknowledgements_org_document_idx').on(
      t.organization_id,
      t.document_id,
      t.version_number,
      t.acknowledged_at,
      t.id,
    ),
    index('acknowledgements_person_idx').on(t.person_id, t.document_id),
  ],
);

/**
 * A vendor security questionnaire template: ordered questions (JSON, src/tools/questionnaires/questions.ts) an
 * organization sends to vendors. A questionnaire sent keeps its own copy, so editing a template changes none sent.
 */
export const questionnaireTemplates = sqliteTable(
  'questionnaire_templates',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    questions: text('questions', { mode: 'json' }).$type<unknown[]>().notNull(),
    ...timestamps,
  },
  (t) => [index('questionnaire_templates_org_idx').on(t.organization_id, t.id)],
);

/**
 * One questionnaire sent to a vendor's contact: the template's questions as sent, a link whose secret is kept as its
 * SHA-256 only (it grants answering this questionnaire once, nothing else), then the answers and their score, never
 * changed after they are submitted.
 */
export const vendorQuestionnaires = sqliteTable(
  'vendor_questionnaires',
  {
    ...scoped,
    vendor_id: text('vendor_id').notNull(),
    template_id: text('template_id').notNull(),
    title: text('title').notNull(),
    questions: text('questions', { mode: 'json' }).$type<unknown[]>().notNull(),
    contact_name: text('contact_name').notNull(),
    contact_email: text('contact_email').notNull(),
    due_date: text('due_date').notNull(),
    secret_hash: text('secret_hash'),
    link_expires_at: text('link_expires_at').notNull(),
    reminded_at: text('reminded_at'),
    answers: text('answers', { mode: 'json' }).$type<unknown[] | null>(),
    score: integer('score'),
    answered_at: text('answered_at'),
    sent_by_user_id: text('sent_by_user_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('vendor_questionnaires_secret_unique').on(t.secret_hash),
    index('vendor_questionnaires_org_idx').on(t.organization_id, t.id),
    index('vendor_questionnaires_vendor_idx').on(t.vendor_id, t.id),
    // Unanswered ones coming due (myWork, notifications): the open rows of an organization by due date.
    index('vendor_questionnaires_open_idx').on(t.organization_id, t.answered_at, t.due_date),
    // Awaiting answers (PENDING) or whose link ran out (EXPIRED): a range of the unanswered rows by link expiry.
    index('vendor_questionnaires_unanswered_idx')
      .on(t.organization_id, t.link_expires_at)
      .where(sql`${t.answered_at} is null`),
  ],
);

/**
 * A file a vendor's contact attached to one answer of a questionnaire, through its link while it was unanswered and
 * unexpired (src/tools/questionnaires/attachments.ts). Never changed; it goes with its questionnaire.
 */
export const vendorQuestionnaireFiles = sqliteTable(
  'vendor_questionnaire_files',
  {
    ...scoped,
    questionnaire_id: text('questionnaire_id').notNull(),
    /** The question (its key in the questionnaire's questions) the file supports. */
    question_key: text('question_key').notNull(),
    file_id: text('file_id').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    // A questionnaire's files in the order they came (attachmentsOf): read along the index, no sort.
    index('vendor_questionnaire_files_questionnaire_idx').on(t.questionnaire_id, t.created_at, t.id),
    // Upkeep's check that a stored file is still referenced.
    index('vendor_questionnaire_files_file_idx').on(t.file_id),
  ],
);

export const documentApprovers = sqliteTable(
  'document_approvers',
  {
    document_id: text('document_id').notNull(),
    person_id: text('person_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.document_id, t.person_id] }),
    index('document_approvers_person_idx').on(t.person_id),
  ],
);

/**
 * Each approver's approval of a document's version, while the version is IN_REVIEW; the version is APPROVED once the
 * document's approval rule is met. A rejection or a return to draft clears them (the history keeps each one).
 */
export const documentApprovals = sqliteTable(
  'document_approvals',
  {
    document_id: text('document_id').notNull(),
    version: integer('version').notNull(),
    person_id: text('person_id').notNull(),
    organization_id: text('organization_id').notNull(),
    /** The account that approved as that person. */
    user_id: text('user_id').notNull(),
    approved_at: text('approved_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.document_id, t.version, t.person_id] }),
    index('document_approvals_org_idx').on(t.organization_id),
  ],
);

export const documentRequirements = sqliteTable(
  'document_requirements',
  {
    document_id: text('document_id').notNull(),
    requirement_id: text('requirement_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.document_id, t.requirement_id] }),
    index('document_requirements_requirement_idx').on(t.requirement_id),
  ],
);

export const documentMeasures = sqliteTable(
  'document_measures',
  {
    document_id: text('document_id').notNull(),
    measure_id: text('measure_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.document_id, t.measure_id] }),
    index('document_measures_measure_idx').on(t.measure_id),
  ],
);

// Stored files (src/files/): a row per blob in the BlobStore, written after the blob is stored; evidence and documents
// point at it (src/files/referrers.ts).
export const storedFiles = sqliteTable(
  'stored_files',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** The blob's key in the store: random, never derived from the name. */
    storage_key: text('storage_key').notNull(),
    /** The sanitised file name. */
    name: text('name').notNull(),
    size: integer('size').notNull(),
    /** Sniffed from the first bytes; never text/html or image/svg+xml. */
    content_type: text('content_type').notNull(),
    /** Hex SHA-256 of the bytes, computed while they streamed in. */
    sha256: text('sha256').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('stored_files_storage_key_unique').on(t.storage_key),
    index('stored_files_org_created_idx').on(t.organization_id, t.created_at),
    index('stored_files_created_idx').on(t.created_at),
  ],
);

// ---- evidence: files and links attached to records -----------------------------------------------

export const evidence = sqliteTable(
  'evidence',
  {
    ...scoped,
    title: text('title').notNull(),
    description: text('description'),
    /** LINK (url) or FILE (file_id and the stored file's facts, copied when added). */
    kind: text('kind').notNull(),
    url: text('url'),
    file_id: text('file_id'),
    file_name: text('file_name'),
    size: integer('size'),
    content_type: text('content_type'),
    sha256: text('sha256'),
    collected_on: text('collected_on').notNull(),
    valid_until: text('valid_until'),
    /** The older evidence item this one replaces. */
    supersedes_id: text('supersedes_id'),
    /** Random per update: the record_ids rewrite runs only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    // valid_until too: a walk tests the expiry filters on the index, reading only the rows it keeps.
    index('evidence_org_created_idx').on(t.organization_id, t.created_at, t.id, t.valid_until),
    index('evidence_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('evidence_org_title_idx').on(t.organization_id, t.title, t.id),
    index('evidence_org_collected_idx').on(t.organization_id, t.collected_on, t.id),
    index('evidence_org_valid_until_idx').on(t.organization_id, t.valid_until, t.id),
    index('evidence_org_kind_idx').on(t.organization_id, t.kind),
    index('evidence_supersedes_idx').on(t.supersedes_id, t.created_at),
    index('evidence_file_idx').on(t.file_id),
  ],
);

/** The records an evidence item is evidence for; record_id's prefix tells its kind (msr_, req_, rsk_, ...). */
export const evidenceRecords = sqliteTable(
  'evidence_records',
  {
    evidence_id: text('evidence_id').notNull(),
    record_id: text('record_id').notNull(),
    organization_id: text('organization_id').notNull(),
    /**
     * The evidence item's created_at, kept by triggers (migration 0050): a record's evidence is read in the list's
     * default order from the index below, without looking up the items it skips (FilterSpec.lead).
     */
    created_at: text('created_at'),
  },
  (t) => [
    primaryKey({ columns: [t.evidence_id, t.record_id] }),
    index('evidence_records_record_idx').on(t.record_id, t.organization_id, t.created_at, t.evidence_id),
  ],
);

// ---- webhooks ------------------------------------------------------------------------------------

/** An organization's webhook endpoint (`whk_...`): where events are sent, which ones, and the signing secrets. */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    url: text('url').notNull(),
    description: text('description'),
    /** Event types sent to it, a JSON array (`risk.created`, `risk.*`, `*`). */
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    /**
     * The signing secret (`whsec_` + base64), shown once and kept as every delivery is signed with it: sealed under
     * SECRETS_KEY (`enc:v1:<key id>:<iv>:<ciphertext>`, src/webhooks/secrets.ts); plain only in rows from before that.
     */
    secret: text('secret').notNull(),
    /** After a rotation: the previous secret (sealed too), which signs beside the new one until `previous_secret_until`. */
    previous_secret: text('previous_secret'),
    previous_secret_until: text('previous_secret_until'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    /** The member who made it (or last turned it on); null for endpoints older than this column. */
    created_by_user_id: text('created_by_user_id'),
    /** Why it is off when the service turned it off: `creator_left` (its creator left or was removed). */
    paused_reason: text('paused_reason', { enum: ['creator_left'] }),
    ...timestamps,
  },
  (t) => [index('webhook_endpoints_org_idx').on(t.organization_id, t.enabled)],
);

/**
 * The outbox: one message (`msg_...`, its `webhook-id`) per event and endpoint. Rows for record changes are written
 * by a trigger on record_changes (migrations), so in the same transaction as the change.
 */
export const webhookMessages = sqliteTable(
  'webhook_messages',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    endpoint_id: text('endpoint_id').notNull(),
    event_type: text('event_type').notNull(),
    /** The JSON body sent: `{ type, timestamp, data }`. */
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    next_attempt_at: text('next_attempt_at').notNull(),
    /** Retries stop here (a day after the event, or after a redelivery) and the message is marked failed. */
    retry_until: text('retry_until').notNull(),
    /** A runner that claimed it holds it until then; after, another runner may try again (at least once). */
    locked_until: text('locked_until'),
    last_attempt_at: text('last_attempt_at'),
    last_status_code: integer('last_status_code'),
    last_error: text('last_error'),
    delivered_at: text('delivered_at'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('webhook_messages_due_idx').on(t.status, t.next_attempt_at),
    index('webhook_messages_endpoint_idx').on(t.endpoint_id, t.created_at, t.id),
  ],
);

// ---- tasks: work with an owner, an assignee account and a due date, linked to records of any register -------

export const tasks = sqliteTable(
  'tasks',
  {
    ...scoped,
    title: text('title').notNull(),
    description: text('description'),
    owner_id: text('owner_id'),
    /** An account (`usr_...`) that is a member of the organization. */
    assignee_user_id: text('assignee_user_id'),
    due_on: text('due_on'),
    status: text('status').notNull(),
    priority: text('priority').notNull(),
    /** Random per update: the batch's relation writes run only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    // The assignee and status too: a walk for one assignee's open tasks tests them on the index.
    index('tasks_org_created_idx').on(t.organization_id, t.created_at, t.id, t.assignee_user_id, t.status),
    index('tasks_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('tasks_org_title_idx').on(t.organization_id, t.title, t.id),
    index('tasks_org_due_idx').on(t.organization_id, t.due_on, t.id),
    index('tasks_org_status_idx').on(t.organization_id, t.status, t.due_on),
    index('tasks_org_owner_idx').on(t.organization_id, t.owner_id),
    index('tasks_org_assignee_idx').on(t.organization_id, t.assignee_user_id, t.status),
    index('tasks_assignee_idx').on(t.assignee_user_id, t.status, t.due_on),
  ],
);

/** The records a task is about (a risk it treats, a nonconformity it corrects): ids of several registers. */
export const taskRecords = sqliteTable(
  'task_records',
  {
    task_id: text('task_id').notNull(),
    /** A record of any register a task links to; its id prefix tells the kind (`rsk_`, `ncf_`, ...). */
    record_id: text('record_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.task_id, t.record_id] }),
    index('task_records_record_idx').on(t.record_id),
  ],
);

/**
 * Scheduled webhook events already put in the outbox (`review.due`, `task.due`, `evidence.expiring`), one key per
 * event, record and date (`task.due:tsk_...:2026-12-01`): a scan enqueues an event only once.
 */
export const webhookScheduledEvents = sqliteTable(
  'webhook_scheduled_events',
  {
    organization_id: text('organization_id').notNull(),
    event_key: text('event_key').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.event_key] })],
);

// ---- incidents and their regulatory clocks; the privacy registers (GDPR Art. 30, 35, 15-22) ---------------------

export const incidents = sqliteTable(
  'incidents',
  {
    ...scoped,
    title: text('title').notNull(),
    description: text('description'),
    /** When it happened, if known (ISO time). */
    occurred_at: text('occurred_at'),
    /** When the organization became aware of it (ISO time): every first-stage regulatory clock starts here. */
    detected_at: text('detected_at').notNull(),
    reported_by_id: text('reported_by_id'),
    owner_id: text('owner_id'),
    severity: text('severity').notNull(),
    category: text('category').notNull(),
    status: text('status').notNull(),
    personal_data: integer('personal_data', { mode: 'boolean' }).notNull().default(false),
    affected_people: integer('affected_people'),
    gdpr_risk: text('gdpr_risk'),
    nis2_significant: integer('nis2_significant', { mode: 'boolean' }).notNull().default(false),
    /** DORA: when it was classified as a major ICT-related incident (ISO time); null = not major. */
    dora_major_at: text('dora_major_at'),
    /** The regimes whose clocks apply to it (JSON list); null = the organization's setting. */
    regimes: text('regimes', { mode: 'json' }).$type<string[]>(),
    root_cause: text('root_cause'),
    lessons_learned: text('lessons_learned'),
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('incidents_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('incidents_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('incidents_org_title_idx').on(t.organization_id, t.title, t.id),
    index('incidents_org_detected_idx').on(t.organization_id, t.detected_at, t.id),
    index('incidents_org_status_idx').on(t.organization_id, t.status, t.detected_at),
    index('incidents_org_severity_idx').on(t.organization_id, t.severity, t.detected_at),
    index('incidents_org_owner_idx').on(t.organization_id, t.owner_id),
  ],
);

export const incidentAssets = sqliteTable(
  'incident_assets',
  {
    incident_id: text('incident_id').notNull(),
    asset_id: text('asset_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.asset_id] }),
    index('incident_assets_asset_idx').on(t.asset_id),
  ],
);
export const incidentVendors = sqliteTable(
  'incident_vendors',
  {
    incident_id: text('incident_id').notNull(),
    vendor_id: text('vendor_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.vendor_id] }),
    index('incident_vendors_vendor_idx').on(t.vendor_id),
  ],
);
export const incidentDataClassifications = sqliteTable(
  'incident_data_classifications',
  {
    incident_id: text('incident_id').notNull(),
    data_classification_id: text('data_classification_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.data_classification_id] }),
    index('incident_data_classifications_data_classification_idx').on(t.data_classification_id),
  ],
);
export const incidentRisks = sqliteTable(
  'incident_risks',
  {
    incident_id: text('incident_id').notNull(),
    risk_id: text('risk_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.risk_id] }),
    index('incident_risks_risk_idx').on(t.risk_id),
  ],
);
export const incidentProcessingActivities = sqliteTable(
  'incident_processing_activities',
  {
    incident_id: text('incident_id').notNull(),
    processing_activity_id: text('processing_activity_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.processing_activity_id] }),
    index('incident_processing_activities_processing_activity_idx').on(t.processing_activity_id),
  ],
);
export const incidentObligations = sqliteTable(
  'incident_obligations',
  {
    incident_id: text('incident_id').notNull(),
    obligation_id: text('obligation_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.obligation_id] }),
    index('incident_obligations_obligation_idx').on(t.obligation_id),
  ],
);

/** An incident's timeline: what was done, when, by whom. */
export const incidentActions = sqliteTable(
  'incident_actions',
  {
    ...scoped,
    incident_id: text('incident_id').notNull(),
    at: text('at').notNull(),
    actor_id: text('actor_id'),
    action: text('action').notNull(),
    outcome: text('outcome'),
    ...timestamps,
  },
  (t) => [
    index('incident_actions_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('incident_actions_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('incident_actions_org_at_idx').on(t.organization_id, t.at, t.id),
    index('incident_actions_incident_idx').on(t.incident_id, t.at),
  ],
);

/** A notification sent to an authority or to the people affected: it stops the clock of its regime and stage. */
export const incidentNotifications = sqliteTable(
  'incident_notifications',
  {
    ...scoped,
    incident_id: text('incident_id').notNull(),
    regime: text('regime').notNull(),
    stage: text('stage').notNull(),
    recipient: text('recipient').notNull(),
    sent_at: text('sent_at').notNull(),
    reference: text('reference'),
    document_id: text('document_id'),
    note: text('note'),
    ...timestamps,
  },
  (t) => [
    index('incident_notifications_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('incident_notifications_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('incident_notifications_org_sent_idx').on(t.organization_id, t.sent_at, t.id),
    index('incident_notifications_incident_idx').on(t.incident_id, t.regime, t.stage),
  ],
);

/**
 * Each incident's clocks as last computed (src/tools/incidents/clocks.ts), rewritten with every write to the incident
 * or its notifications: what the deadline scans, My work and the summary read without computing every incident.
 * `open` is 1 while the clock still asks for a notification (running, missed or waiting), 0 once it is sent.
 */
export const incidentDeadlines = sqliteTable(
  'incident_deadlines',
  {
    organization_id: text('organization_id').notNull(),
    incident_id: text('incident_id').notNull(),
    regime: text('regime').notNull(),
    stage: text('stage').notNull(),
    due_at: text('due_at'),
    /** The deadline's calendar date in the organization's time zone. */
    due_on: text('due_on'),
    sent_at: text('sent_at'),
    open: integer('open', { mode: 'boolean' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.incident_id, t.regime, t.stage] }),
    index('incident_deadlines_open_idx').on(t.organization_id, t.open, t.due_at),
  ],
);

/**
 * Incidents whose clocks must be computed again (a write to the incident or its notifications, or a change of the
 * organization's settings, queues it by trigger, in the same transaction): readers refresh them first. `token` changes
 * with every queueing, so a refresh removes only the entry it computed.
 */
export const incidentClockQueue = sqliteTable(
  'incident_clock_queue',
  {
    incident_id: text('incident_id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    token: text('token').notNull(),
  },
  (t) => [index('incident_clock_queue_org_idx').on(t.organization_id)],
);

export const processingActivities = sqliteTable(
  'processing_activities',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    role: text('role').notNull(),
    /** For a processor: the controllers on whose behalf it processes (Art. 30(2)(a)). */
    controllers: text('controllers'),
    purposes: text('purposes').notNull(),
    lawful_bases: text('lawful_bases', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    special_category_condition: text('special_category_condition'),
    data_subject_categories: text('data_subject_categories', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    personal_data_categories: text('personal_data_categories', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    recipients: text('recipients'),
    transfer_countries: text('transfer_countries', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    transfer_safeguard: text('transfer_safeguard'),
    retention: text('retention'),
    owner_id: text('owner_id'),
    ...reviewColumns(),
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('processing_activities_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('processing_activities_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('processing_activities_org_name_idx').on(t.organization_id, t.name, t.id),
    index('processing_activities_org_role_idx').on(t.organization_id, t.role),
    index('processing_activities_org_owner_idx').on(t.organization_id, t.owner_id),
    index('processing_activities_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
  ],
);

export const processingActivityVendors = sqliteTable(
  'processing_activity_vendors',
  {
    processing_activity_id: text('processing_activity_id').notNull(),
    vendor_id: text('vendor_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.processing_activity_id, t.vendor_id] }),
    index('processing_activity_vendors_vendor_idx').on(t.vendor_id),
  ],
);
export const processingActivityDataClassifications = sqliteTable(
  'processing_activity_data_classifications',
  {
    processing_activity_id: text('processing_activity_id').notNull(),
    data_classification_id: text('data_classification_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.processing_activity_id, t.data_classification_id] }),
    index('processing_activity_data_classifications_data_classification_idx').on(t.data_classification_id),
  ],
);
export const processingActivityMeasures = sqliteTable(
  'processing_activity_measures',
  {
    processing_activity_id: text('processing_activity_id').notNull(),
    measure_id: text('measure_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.processing_activity_id, t.measure_id] }),
    index('processing_activity_measures_measure_idx').on(t.measure_id),
  ],
);

export const dpias = sqliteTable(
  'dpias',
  {
    ...scoped,
    title: text('title').notNull(),
    description: text('description'),
    status: text('status').notNull(),
    screening_criteria: text('screening_criteria', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    necessity: text('necessity'),
    dpo_advice: text('dpo_advice'),
    decision: text('decision'),
    prior_consultation: integer('prior_consultation', { mode: 'boolean' }).notNull().default(false),
    owner_id: text('owner_id'),
    approver_id: text('approver_id'),
    approved_on: text('approved_on'),
    ...reviewColumns(),
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('dpias_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('dpias_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('dpias_org_title_idx').on(t.organization_id, t.title, t.id),
    index('dpias_org_status_idx').on(t.organization_id, t.status),
    index('dpias_org_owner_idx').on(t.organization_id, t.owner_id),
    index('dpias_org_review_idx').on(t.organization_id, t.next_review_on, t.id),
  ],
);

export const dpiaProcessingActivities = sqliteTable(
  'dpia_processing_activities',
  {
    dpia_id: text('dpia_id').notNull(),
    processing_activity_id: text('processing_activity_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.dpia_id, t.processing_activity_id] }),
    index('dpia_processing_activities_processing_activity_idx').on(t.processing_activity_id),
  ],
);
export const dpiaRisks = sqliteTable(
  'dpia_risks',
  {
    dpia_id: text('dpia_id').notNull(),
    risk_id: text('risk_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.dpia_id, t.risk_id] }), index('dpia_risks_risk_idx').on(t.risk_id)],
);
export const dpiaMeasures = sqliteTable(
  'dpia_measures',
  {
    dpia_id: text('dpia_id').notNull(),
    measure_id: text('measure_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.dpia_id, t.measure_id] }),
    index('dpia_measures_measure_idx').on(t.measure_id),
  ],
);

export const dataSubjectRequests = sqliteTable(
  'data_subject_requests',
  {
    ...scoped,
    reference: text('reference').notNull(),
    request_type: text('request_type').notNull(),
    received_on: text('received_on').notNull(),
    identity_verified_on: text('identity_verified_on'),
    verification_method: text('verification_method'),
    /** Derived: one month from receipt, plus the extension (Art. 12(3)). */
    due_on: text('due_on').notNull(),
    extension_months: integer('extension_months').notNull().default(0),
    extension_reason: text('extension_reason'),
    status: text('status').notNull(),
    response_sent_on: text('response_sent_on'),
    owner_id: text('owner_id'),
    note: text('note'),
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('data_subject_requests_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('data_subject_requests_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('data_subject_requests_org_reference_idx').on(t.organization_id, t.reference, t.id),
    index('data_subject_requests_org_due_idx').on(t.organization_id, t.due_on, t.id),
    index('data_subject_requests_org_received_idx').on(t.organization_id, t.received_on, t.id),
    index('data_subject_requests_org_status_idx').on(t.organization_id, t.status, t.due_on),
    // With the status: one owner's open requests are a seek, however many they have answered (myWork).
    index('data_subject_requests_org_owner_idx').on(t.organization_id, t.owner_id, t.status),
  ],
);

export const dataSubjectRequestProcessingActivities = sqliteTable(
  'data_subject_request_processing_activities',
  {
    data_subject_request_id: text('data_subject_request_id').notNull(),
    processing_activity_id: text('processing_activity_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.data_subject_request_id, t.processing_activity_id] }),
    index('data_subject_request_processing_activities_processing_activity_idx').on(t.processing_activity_id),
  ],
);
export const dataSubjectRequestAssets = sqliteTable(
  'data_subject_request_assets',
  {
    data_subject_request_id: text('data_subject_request_id').notNull(),
    asset_id: text('asset_id').notNull(),
    organization_id: text('organization_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.data_subject_request_id, t.asset_id] }),
    index('data_subject_request_assets_asset_idx').on(t.asset_id),
  ],
);

// ---- access reviews: campaigns of entries (an account's access to a system), each decided by its reviewer ----------

/** An access review campaign: the systems in scope, the period reviewed, its reviewers, due date and status. */
export const accessReviews = sqliteTable(
  'access_reviews',
  {
    ...scoped,
    name: text('name').notNull(),
    description: text('description'),
    status: text('status').notNull(),
    period_start: text('period_start'),
    period_end: text('period_end'),
    due_on: text('due_on'),
    owner_id: text('owner_id'),
    completed_on: text('completed_on'),
    /** The evidence item written when it was completed (evidence for the requirements it covers). */
    evidence_id: text('evidence_id'),
    /** Random per update: the links' rewrite runs only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('access_reviews_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('access_reviews_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('access_reviews_org_name_idx').on(t.organization_id, t.name, t.id),
    index('access_reviews_org_due_idx').on(t.organization_id, t.due_on, t.id),
    index('access_reviews_org_status_idx').on(t.organization_id, t.status, t.due_on),
    index('access_reviews_org_owner_idx').on(t.organization_id, t.owner_id),
  ],
);

function accessReviewLink<T extends string>(name: string, column: T) {
  return sqliteTable(
    name,
    {
      access_review_id: text('access_review_id').notNull(),
      target_id: text(column).notNull(),
      organization_id: text('organization_id').notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.access_review_id, t.target_id] }),
      index(`${name}_target_idx`).on(t.target_id),
    ],
  );
}
export const accessReviewAssets = accessReviewLink('access_review_assets', 'asset_id');
export const accessReviewVendors = accessReviewLink('access_review_vendors', 'vendor_id');
export const accessReviewReviewers = accessReviewLink('access_review_reviewers', 'person_id');
export const accessReviewRequirements = accessReviewLink('access_review_requirements', 'requirement_id');

/** One account's access to one system under review, and its reviewer's decision (null = not decided yet). */
export const accessReviewEntries = sqliteTable(
  'access_review_entries',
  {
    ...scoped,
    access_review_id: text('access_review_id').notNull(),
    account: text('account'),
    person_id: text('person_id'),
    system: text('system').notNull(),
    asset_id: text('asset_id'),
    vendor_id: text('vendor_id'),
    access_level: text('access_level'),
    reviewer_id: text('reviewer_id'),
    decision: text('decision'),
    decided_at: text('decided_at'),
    decided_by_id: text('decided_by_id'),
    decision_comment: text('decision_comment'),
    ...timestamps,
  },
  (t) => [
    index('access_review_entries_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('access_review_entries_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('access_review_entries_org_system_idx').on(t.organization_id, t.system, t.id),
    /** A reviewer's open entries: filter reviewer_id and decided false, newest first. */
    index('access_review_entries_org_reviewer_idx').on(
      t.organization_id,
      t.reviewer_id,
      t.decision,
      t.created_at,
      t.id,
    ),
    index('access_review_entries_review_idx').on(t.access_review_id, t.decision),
  ],
);

// ---- management reviews (ISO 27001 9.3): top management's review of the ISMS, its inputs, decisions and tasks -------

/** A management review: when, the period it looks back on, what was put before it, what it decided. */
export const managementReviews = sqliteTable(
  'management_reviews',
  {
    ...scoped,
    title: text('title').notNull(),
    held_on: text('held_on').notNull(),
    status: text('status').notNull(),
    period_from: text('period_from'),
    period_to: text('period_to'),
    chair_id: text('chair_id'),
    earlier_actions: text('earlier_actions'),
    issue_changes: text('issue_changes'),
    party_changes: text('party_changes'),
    nonconformities_summary: text('nonconformities_summary'),
    monitoring_summary: text('monitoring_summary'),
    audit_summary: text('audit_summary'),
    objectives_summary: text('objectives_summary'),
    party_feedback: text('party_feedback'),
    risk_summary: text('risk_summary'),
    improvement_opportunities: text('improvement_opportunities'),
    outputs: text('outputs'),
    decisions: text('decisions'),
    /** Random per update: the links' rewrite runs only if this update is the one that landed. */
    write_nonce: text('write_nonce'),
    ...timestamps,
  },
  (t) => [
    index('management_reviews_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('management_reviews_org_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('management_reviews_org_title_idx').on(t.organization_id, t.title, t.id),
    index('management_reviews_org_held_idx').on(t.organization_id, t.held_on, t.id),
    index('management_reviews_org_status_idx').on(t.organization_id, t.status, t.held_on),
  ],
);

function managementReviewLink<T extends string>(name: string, column: T) {
  return sqliteTable(
    name,
    {
      management_review_id: text('management_review_id').notNull(),
      target_id: text(column).notNull(),
      organization_id: text('organization_id').notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.management_review_id, t.target_id] }),
      index(`${name}_target_idx`).on(t.target_id),
    ],
  );
}
export const managementReviewAttendees = managementReviewLink('management_review_attendees', 'person_id');
export const managementReviewTasks = managementReviewLink('management_review_tasks', 'task_id');

/**
 * An organization's public trust page (src/trust/): off until enabled, served at /trust/<slug> (and on a hostname
 * mapped to the slug by TRUST_PAGE_HOSTS). It shows only what trust_page_items name, the contact, and (when chosen)
 * the vendors flagged as sub-processors.
 */
export const trustPages = sqliteTable(
  'trust_pages',
  {
    organization_id: text('organization_id')
      .primaryKey()
      .references(() => organizations.id),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    introduction: text('introduction'),
    contact_email: text('contact_email'),
    show_sub_processors: integer('show_sub_processors', { mode: 'boolean' }).notNull().default(false),
    /** The terms a visitor accepts when asking for a document. */
    request_terms: text('request_terms').notNull(),
    /** Days an approved request's download link works. */
    link_days: integer('link_days').notNull().default(7),
    ...timestamps,
  },
  (t) => [uniqueIndex('trust_pages_slug_unique').on(t.slug)],
);

/** A record chosen for the trust page: a framework or an audit (shown), a document (PUBLIC to read or ON_REQUEST). */
export const trustPageItems = sqliteTable(
  'trust_page_items',
  {
    organization_id: text('organization_id').notNull(),
    record_id: text('record_id').notNull(),
    kind: text('kind', { enum: ['framework', 'audit', 'document'] }).notNull(),
    access: text('access', { enum: ['PUBLIC', 'ON_REQUEST'] }).notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.record_id] })],
);

/**
 * A visitor's request for a document offered ON_REQUEST: PENDING until an owner or admin decides; an approval issues
 * a download link for that document only (a random secret, only its SHA-256 kept) that expires.
 */
export const trustAccessRequests = sqliteTable(
  'trust_access_requests',
  {
    ...scoped,
    document_id: text('document_id').notNull(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    company: text('company').notNull(),
    terms_accepted_at: text('terms_accepted_at').notNull(),
    status: text('status', { enum: ['PENDING', 'APPROVED', 'REJECTED'] }).notNull(),
    decided_by_user_id: text('decided_by_user_id'),
    decided_at: text('decided_at'),
    secret_hash: text('secret_hash'),
    link_expires_at: text('link_expires_at'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('trust_access_requests_secret_unique').on(t.secret_hash),
    index('trust_access_requests_org_idx').on(t.organization_id, t.status, t.id),
  ],
);

/**
 * Proposed writes: a write tool called with a `propose` token (or one the organization's approval_required setting
 * holds back) is stored here as a change set, applied through the same tool once a person approves it in the web.
 */
export const proposals = sqliteTable(
  'proposals',
  {
    ...scoped,
    /** The write tool proposed (e.g. `updateRisk`) and its arguments as validated (JSON). */
    tool: text('tool').notNull(),
    arguments: text('arguments', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    kind: text('kind').notNull(),
    action: text('action', { enum: ['add', 'update', 'delete'] }).notNull(),
    /** The record changed or deleted; for an add, the record created once applied. */
    record_id: text('record_id'),
    /** The record's updated_at when proposed: applying is refused (CONFLICT) if it changed since. Null for an add. */
    base_updated_at: text('base_updated_at'),
    /** The change set: changed fields before/after (update), the full new record (add) or the record (delete). */
    before: text('before', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    after: text('after', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    /** Why it waits: the token's scope `propose`, the approval_required setting, or proposeWrite (asked for). */
    reason: text('reason', { enum: ['scope', 'setting', 'request'] }).notNull(),
    proposed_by_user_id: text('proposed_by_user_id').notNull(),
    proposed_by_token_id: text('proposed_by_token_id').notNull(),
    /** The OAuth client's name when the token belongs to a grant; null for API tokens. */
    proposed_by_client: text('proposed_by_client'),
    proposed_via: text('proposed_via', { enum: ['mcp', 'direct', 'web', 'cli'] }).notNull(),
    proposed_call_id: text('proposed_call_id').notNull(),
    /** EXPIRED is stored by the scan that tells the proposer (src/proposals/expiry.ts); until then PENDING reads so. */
    status: text('status', {
      enum: ['PENDING', 'APPLYING', 'APPLIED', 'REJECTED', 'CONFLICT', 'EXPIRED'],
    }).notNull(),
    created_at: text('created_at').notNull(),
    /** A PENDING proposal past this time reads as EXPIRED and can no longer be approved. */
    expires_at: text('expires_at').notNull(),
    decided_at: text('decided_at'),
    decided_by_user_id: text('decided_by_user_id'),
    /** The reviewer's comment (reject), or why applying was refused (CONFLICT). */
    decision_comment: text('decision_comment'),
    /** The web call that applied it (its history rows carry the same call id). */
    applied_call_id: text('applied_call_id'),
  },
  (t) => [
    index('proposals_org_idx').on(t.organization_id, t.status, t.created_at, t.id),
    index('proposals_token_idx').on(t.proposed_by_token_id, t.created_at),
    index('proposals_expiry_idx').on(t.status, t.expires_at),
  ],
);
