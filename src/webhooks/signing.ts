// Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, with `whsec_<base64>` secrets.

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A new signing secret, `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;
}

/** The `webhook-signature` value: one `v1,<signature>` per secret, separated by spaces (several during a rotation). */
export async function signWebhook(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const content = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  const signatures = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey(
        'raw',
        fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      );
      const mac = await crypto.subtle.sign('HMAC', key, content);
      return `v1,${toBase64(new Uint8Array(mac))}`;
    }),
  );
  return signatures.join(' ');
}
