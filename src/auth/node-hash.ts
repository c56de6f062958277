// SHA-256 on Node by node:crypto: synchronous, the same hex as crypto.ts's sha256Hex (WebCrypto, which the Worker uses).
import { createHash } from 'node:crypto';

export function nodeSha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
