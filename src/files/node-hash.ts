// Streaming SHA-256 on Node (node:crypto), for FileRuntime.sha256.
import { createHash } from 'node:crypto';
import type { Sha256Stream } from './store.ts';

export function nodeSha256Stream(): Sha256Stream {
  const hash = createHash('sha256');
  return {
    update(chunk) {
      hash.update(chunk);
    },
    digest: async () => hash.digest('hex'),
  };
}
