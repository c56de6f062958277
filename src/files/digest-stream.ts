// Streaming SHA-256 in workerd: crypto.DigestStream (a Workers runtime API; absent on Node, which uses node-hash.ts).
import type { Sha256Stream } from './store.ts';

interface DigestStreamClass {
  new (algorithm: string): WritableStream<Uint8Array> & { digest: Promise<ArrayBuffer> };
}

export function hasDigestStream(): boolean {
  return typeof (crypto as unknown as { DigestStream?: unknown }).DigestStream === 'function';
}

export function digestStreamSha256(): Sha256Stream {
  const DigestStream = (crypto as unknown as { DigestStream: DigestStreamClass }).DigestStream;
  const stream = new DigestStream('SHA-256');
  const writer = stream.getWriter();
  return {
    update: (chunk) => writer.write(chunk),
    async digest() {
      await writer.close();
      const bytes = new Uint8Array(await stream.digest);
      return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    },
  };
}
