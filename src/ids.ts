// Kind-prefixed opaque identifiers with 120 random bits (e.g. `rsk_0d3k...`).

export const ID_PREFIXES = {
  organization: 'org',
  user: 'usr',
  token: 'tok',
  vendor: 'ven',
  risk: 'rsk',
  risk_acceptance: 'rac',
  control_test: 'ctt',
  vendor_assessment: 'vas',
  measure: 'msr',
  obligation: 'obl',
  person: 'per',
  framework: 'fwk',
  asset: 'ast',
  data_classification: 'dcl',
  nonconformity: 'ncf',
  continual_improvement: 'cim',
  audit: 'aud',
  requirement: 'req',
  document: 'doc',
  document_version: 'dcv',
  /** A request that people acknowledge a document version. */
  acknowledgement_request: 'akr',
  /** One person's acknowledgement of a document version (pending until given). */
  acknowledgement: 'ack',
  /** A vendor security questionnaire template (ordered questions). */
  questionnaire_template: 'qtp',
  /** One questionnaire sent to a vendor, answered once through its link. */
  vendor_questionnaire: 'vqn',
  /** A file attached to a questionnaire's answer through its link. */
  vendor_questionnaire_file: 'vqf',
  /** A visitor's request to download a document offered on request on the trust page. */
  trust_access_request: 'tar',
  evidence: 'evd',
  task: 'tsk',
  incident: 'inc',
  incident_action: 'ina',
  incident_notification: 'inn',
  processing_activity: 'pra',
  dpia: 'dpi',
  data_subject_request: 'dsr',
  access_review: 'arv',
  access_review_entry: 'are',
  management_review: 'mrv',
  change: 'chg',
  call: 'cal',
  oauth_grant: 'grt',
  oauth_client: 'cli',
  notification: 'ntf',
  stored_file: 'fil',
  mapping_proposal: 'mpp',
  /** A proposed write waiting for a person's decision (src/proposals/). */
  proposal: 'prp',
  webhook_endpoint: 'whk',
  /** A webhook message: one event for one endpoint, its `webhook-id`. */
  webhook_message: 'msg',
  /** A pending invitation to an organization. */
  invitation: 'inv',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case
const ID_BODY_LENGTH = 24; // 24 x 5 bits = 120 random bits

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase32(ID_BODY_LENGTH)}`;
}

/**
 * Random bytes drawn from the platform's CSPRNG a pool at a time: one getRandomValues call per POOL_BYTES (about 200
 * ids) rather than one per id. Every byte is used once.
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

export function randomBase32(length: number): string {
  if (length > POOL_BYTES) throw new RangeError(`randomBase32: at most ${POOL_BYTES} characters`);
  if (poolOffset + length > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  let out = '';
  for (let end = poolOffset + length; poolOffset < end; poolOffset++)
    out += ALPHABET[(pool[poolOffset] as number) & 31];
  return out;
}

const ID_PATTERN = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{24}$/;

/** What a valid id of a kind looks like, for error messages: the prefix, the length and the alphabet. */
export function describeIdFormat(prefix: IdPrefix): string {
  return `"${prefix}_" followed by ${ID_BODY_LENGTH} characters from 0-9 and a-z except i, l, o, u (e.g. ${prefix}_8zq3m0v5k1t7w2x9c4n6p0ha)`;
}

export function isIdOf(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
