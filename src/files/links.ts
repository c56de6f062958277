// Signed download links: `/files/<token>`, the token an HMAC over the organization, the file, the subject (the
// evidence item or document it was asked through) and an expiry. The route believes the signature alone, so the
// caller checks the token holder's rights before making a link.
import { utf8 } from '../auth/crypto.ts';
import type { FileRuntime } from './store.ts';

export const DEFAULT_LINK_TTL_SECONDS = 10 * 60;
/** A link lives at most this long, whatever the caller asks. */
export const MAX_LINK_TTL_SECONDS = 24 * 60 * 60;

export interface LinkClaims {
  organizationId: string;
  fileId: string;
  subjectId: string;
  /** Seconds since the epoch. */
  expires: number;
}

const ID = /^[a-z]{3}_[0-9a-z]{24}$/;
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    keys.set(secret, key);
  }
  return key;
}

function signedText(claims: LinkClaims): Uint8Array<ArrayBuffer> {
  return utf8(
    `compliance-mcp file link v1\n${claims.organizationId}\n${claims.fileId}\n${claims.subjectId}\n${claims.expires}`,
  );
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export async function signLink(secret: string, claims: LinkClaims): Promise<string> {
  const signature = await crypto.subtle.sign('HMAC', await hmacKey(secret), signedText(claims));
  const { organizationId, fileId, subjectId, expires } = claims;
  return `${fileId}.${subjectId}.${organizationId}.${expires}.${base64url(new Uint8Array(signature))}`;
}

/** The token's claims when its signature holds and it has not expired; null otherwise, without saying which. */
export async function verifyLink(secret: string, token: string, now: Date): Promise<LinkClaims | null> {
  const parts = token.split('.');
  if (parts.length !== 5) return null;
  const [fileId, subjectId, organizationId, expiresText, signatureText] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (!ID.test(fileId) || !ID.test(subjectId) || !ID.test(organizationId) || !/^\d{1,12}$/.test(expiresText))
    return null;
  const signature = fromBase64url(signatureText);
  if (!signature) return null;
  const claims = { organizationId, fileId, subjectId, expires: Number(expiresText) };
  const valid = await crypto.subtle.verify('HMAC', await hmacKey(secret), signature, signedText(claims));
  if (!valid || claims.expires * 1000 <= now.getTime()) return null;
  return claims;
}

/**
 * A link to download a stored file, valid for ttlSeconds (default 10 minutes). The caller has already checked that
 * the token holder may read the subject in the organization; the route checks the file belongs to the organization.
 * The url is absolute when a base is known (the argument, else PUBLIC_URL), else the path.
 */
export async function downloadLink(
  ctx: { files: FileRuntime; now: () => Date },
  options: {
    organizationId: string;
    fileId: string;
    subjectId: string;
    ttlSeconds?: number;
    baseUrl?: string;
  },
): Promise<{ url: string; expires_at: string }> {
  if (!ctx.files.linkSecret) throw new Error('No link secret here: download links are made by the server.');
  const ttl = Math.min(
    Math.max(1, Math.floor(options.ttlSeconds ?? DEFAULT_LINK_TTL_SECONDS)),
    MAX_LINK_TTL_SECONDS,
  );
  const expires = Math.floor(ctx.now().getTime() / 1000) + ttl;
  const token = await signLink(ctx.files.linkSecret, { ...options, expires });
  const base = (options.baseUrl ?? ctx.files.publicUrl ?? '').replace(/\/+$/, '');
  return { url: `${base}/files/${token}`, expires_at: new Date(expires * 1000).toISOString() };
}
