// The S3 BlobStore (aws4fetch) against a loopback S3-compatible server that checks every SigV4 signature with its own
// implementation (scripts/dev/s3-server.ts): objects, ranges, multipart, listing pages, refused keys.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3TestServer } from '../../scripts/dev/s3-server.ts';
import { createS3BlobStore } from '../../src/files/s3.ts';
import { newStorageKey, readAll, streamOf } from '../../src/files/store.ts';

let s3: S3TestServer;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  s3 = await startS3TestServer({ pageSize: 2 });
});
afterAll(() => s3.close());

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

describe('S3 store', () => {
  const store = () => createS3BlobStore(s3, { partBytes: 64 * 1024 });

  it('puts a small blob in one signed PUT and reads it whole and by range', async () => {
    const key = newStorageKey();
    const bytes = new TextEncoder().encode('the signed DPA');
    await store().put(key, chunked(bytes, 4), { contentType: 'application/pdf' });
    expect(s3.objects.get(key)?.bytes.toString()).toBe('the signed DPA');
    const whole = await store().get(key);
    expect(whole?.size).toBe(14);
    expect(new TextDecoder().decode(await readAll(whole?.body as ReadableStream<Uint8Array>))).toBe(
      'the signed DPA',
    );
    const range = await store().get(key, { start: 4, end: 9 });
    expect(range?.size).toBe(14);
    expect(new TextDecoder().decode(await readAll(range?.body as ReadableStream<Uint8Array>))).toBe('signed');
    expect(await store().get(newStorageKey())).toBeNull();
    expect(s3.refused()).toBe(0);
  });

  it('sends a blob larger than a part as a multipart upload of equal parts', async () => {
    const key = newStorageKey();
    const bytes = new Uint8Array(200_000).map((_, index) => (index * 31) % 256);
    await store().put(key, chunked(bytes, 10_000), { contentType: 'application/octet-stream' });
    expect(sha256(s3.objects.get(key)?.bytes as Buffer)).toBe(sha256(bytes));
    const exact = newStorageKey();
    await store().put(exact, streamOf(new Uint8Array(128 * 1024)), {
      contentType: 'application/octet-stream',
    });
    expect(s3.objects.get(exact)?.bytes.length).toBe(128 * 1024);
  });

  it('lists across pages, deletes, and refuses keys it did not make', async () => {
    for (const key of [...s3.objects.keys()]) await store().delete(key);
    const made = [newStorageKey(), newStorageKey(), newStorageKey()];
    for (const key of made) await store().put(key, streamOf(new Uint8Array(1)), { contentType: 'x' });
    const listed: string[] = [];
    for await (const item of store().list()) {
      listed.push(item.key);
      expect(item.uploadedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(listed.sort()).toEqual([...made].sort());
    await store().delete(made[0] as string);
    expect(s3.objects.has(made[0] as string)).toBe(false);
    await expect(store().get('../other-bucket/x')).rejects.toThrow('Not a storage key');
  });

  it('fails when the keys are wrong (the server refuses the signature)', async () => {
    const wrong = createS3BlobStore({ ...s3, secretAccessKey: 'not the secret' });
    const refused = s3.refused();
    await expect(
      wrong.put(newStorageKey(), streamOf(new Uint8Array(3)), { contentType: 'x' }),
    ).rejects.toThrow('403');
    expect(s3.refused()).toBe(refused + 1);
  });
});
