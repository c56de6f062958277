// Stored files: the disk store, receiveFile (counted, hashed, sniffed, row after blob), signed links.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedFiles } from '../../src/db/schema.ts';
import { AppError } from '../../src/errors.ts';
import { createDiskBlobStore } from '../../src/files/disk.ts';
import { downloadLink, verifyLink } from '../../src/files/links.ts';
import { receiveFile } from '../../src/files/receive.ts';
import { sanitizeFileName } from '../../src/files/sniff.ts';
import {
  type BlobStore,
  inChunksOf,
  newStorageKey,
  partsOf,
  readAll,
  streamOf,
} from '../../src/files/store.ts';
import { fileUpkeep } from '../../src/files/upkeep.ts';
import { createActor, createOrg, createTestRuntime, type TestRuntime } from '../helpers.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function chunked(bytes: Uint8Array, size: number, failAt?: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (failAt !== undefined && offset >= failAt) {
        controller.error(new Error('client went away'));
        return;
      }
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function keysOf(store: BlobStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of store.list()) keys.push(item.key);
  return keys.sort();
}

describe('parts and chunks of a stream', () => {
  const KiB = 1024;
  const bytes = (size: number) => new Uint8Array(size).map((_, index) => (index * 7) % 251);
  const collect = async <T>(items: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const item of items) out.push(item);
    return out;
  };

  it('cuts parts of exactly the part size, the last one shorter, each in a buffer no larger than twice its bytes', async () => {
    const file = bytes(200 * KiB);
    const parts = await collect(partsOf(chunked(file, 48 * KiB), 64 * KiB));
    expect(parts.map((part) => part.byteLength)).toEqual([64 * KiB, 64 * KiB, 64 * KiB, 8 * KiB]);
    expect(Buffer.concat(parts).equals(Buffer.from(file))).toBe(true);
    // A 1 MiB file with the stores' 8 MiB parts: one part of 1 MiB, not an 8 MiB buffer.
    const [only, ...more] = await collect(partsOf(chunked(bytes(1024 * KiB), 64 * KiB), 8 * 1024 * KiB));
    expect(more).toEqual([]);
    expect(only?.byteLength).toBe(1024 * KiB);
    expect(only?.buffer.byteLength).toBeLessThanOrEqual(2 * 1024 * KiB);
    expect(sha256(only ?? new Uint8Array(0))).toBe(sha256(bytes(1024 * KiB)));
    const empty = await collect(partsOf(streamOf(new Uint8Array(0)), 64 * KiB));
    expect(empty.map((part) => part.byteLength)).toEqual([0]);
  });

  it('reads a byte stream in chunks of up to the chunk size (BYOB) and leaves other streams as they are', async () => {
    const file = bytes(300 * KiB);
    let offset = 0;
    const byteStream = new ReadableStream({
      type: 'bytes',
      pull(controller) {
        if (offset >= file.byteLength) {
          controller.close();
          // A byte stream's pending BYOB read ends once the request is answered with 0 bytes.
          return controller.byobRequest?.respond(0);
        }
        controller.enqueue(file.slice(offset, offset + 100 * KiB));
        offset += 100 * KiB;
      },
    }) as ReadableStream<Uint8Array>;
    const chunks = await collect(inChunksOf(byteStream, 64 * KiB) as unknown as AsyncIterable<Uint8Array>);
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBe(64 * KiB);
    expect(Buffer.concat(chunks).equals(Buffer.from(file))).toBe(true);
    const plain = chunked(file, 100 * KiB);
    expect(inChunksOf(plain, 64 * KiB)).toBe(plain);
  });
});

describe('disk store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-files-'));
  const store = createDiskBlobStore(dir);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores, reads whole and by range, lists and deletes', async () => {
    const bytes = new Uint8Array(300_000).map((_, index) => index % 251);
    const key = newStorageKey();
    await store.put(key, chunked(bytes, 65_536), { contentType: 'application/octet-stream' });
    const whole = await store.get(key);
    expect(whole?.size).toBe(300_000);
    expect(sha256(await readAll(whole?.body as ReadableStream<Uint8Array>))).toBe(sha256(bytes));
    const range = await store.get(key, { start: 1000, end: 1009 });
    expect(range?.size).toBe(300_000);
    expect([...(await readAll(range?.body as ReadableStream<Uint8Array>))]).toEqual([
      ...bytes.slice(1000, 1010),
    ]);
    const tail = await store.get(key, { start: 299_990 });
    expect((await readAll(tail?.body as ReadableStream<Uint8Array>)).byteLength).toBe(10);
    expect(await keysOf(store)).toEqual([key]);
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await keysOf(store)).toEqual([]);
  });

  it('leaves nothing under the key when the stream fails', async () => {
    const key = newStorageKey();
    const failing = chunked(new Uint8Array(100_000), 10_000, 50_000);
    await expect(store.put(key, failing, { contentType: 'text/plain' })).rejects.toThrow('client went away');
    expect(await store.get(key)).toBeNull();
    expect(await keysOf(store)).toEqual([]);
    expect(readdirSync(join(dir, key.slice(0, 2)))).toEqual([]);
  });

  it('refuses keys it did not make', async () => {
    await expect(store.get('../../etc/passwd')).rejects.toThrow('Not a storage key');
    await expect(store.put('a/b', streamOf(new Uint8Array(1)), { contentType: 'x' })).rejects.toThrow();
  });
});

describe('receiveFile', () => {
  let runtime: TestRuntime;
  let org: string;
  beforeAll(async () => {
    runtime = await createTestRuntime({ env: { FILE_MAX_BYTES: '100000' } });
    org = await createOrg(runtime, await createActor(runtime));
  });
  afterAll(() => runtime.cleanup());
  const ctx = () => ({ db: runtime.database.db, files: runtime.files, now: () => new Date() });

  async function rowOf(id: string) {
    return (await runtime.database.db.select().from(storedFiles).where(eq(storedFiles.id, id)))[0];
  }

  it('stores the bytes first, then a row with the sniffed type and the SHA-256 of what streamed in', async () => {
    const png = new Uint8Array(5000);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const stored = await receiveFile(ctx(), org, chunked(png, 7), { name: '../../screens/MFA setting.svg' });
    expect(stored).toMatchObject({
      name: 'MFA setting.svg',
      size: 5000,
      content_type: 'image/png',
      sha256: sha256(png),
    });
    expect(stored.id).toMatch(/^fil_/);
    const row = await rowOf(stored.id);
    expect(row?.organization_id).toBe(org);
    expect(row?.storage_key).not.toContain('MFA');
    const blob = await runtime.files.store.get(row?.storage_key as string);
    expect(sha256(await readAll(blob?.body as ReadableStream<Uint8Array>))).toBe(sha256(png));
  });

  it.each([
    ['%PDF-1.7\n', 'report.bin', 'application/pdf'],
    ['\xff\xd8\xff\xe0', 'a.png', 'image/jpeg'],
    ['GIF89a....', 'a', 'image/gif'],
    ['RIFF\x00\x00\x00\x00WEBPVP8 ', 'a', 'image/webp'],
    [
      'PK\x03\x04rest',
      'Policy.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    ['PK\x03\x04rest', 'archive.zip', 'application/zip'],
    ['a,b\n1,2\n', 'data.csv', 'text/csv; charset=utf-8'],
    ['{"a": "é"}', 'x.json', 'application/json; charset=utf-8'],
    ['# Policy\n', 'p.md', 'text/markdown; charset=utf-8'],
    ['<html><script>alert(1)</script></html>', 'page.html', 'text/plain; charset=utf-8'],
    ['<svg xmlns="http://www.w3.org/2000/svg"/>', 'x.svg', 'text/plain; charset=utf-8'],
    ['\x00\x01\x02binary', 'x.txt', 'application/octet-stream'],
  ])('sniffs %j named %s as %s', async (content, name, type) => {
    // The strings are bytes (one character each), but for the JSON one, which is UTF-8 text.
    const bytes = content.includes('é')
      ? new TextEncoder().encode(content)
      : Uint8Array.from(content, (char) => char.charCodeAt(0));
    const stored = await receiveFile(ctx(), org, bytes, { name });
    expect(stored.content_type).toBe(type);
  });

  it('refuses a file over FILE_MAX_BYTES with payload_too_large and leaves no blob and no row', async () => {
    const before = await keysOf(runtime.files.store);
    const rows = (await runtime.database.db.select().from(storedFiles)).length;
    const error = await receiveFile(ctx(), org, chunked(new Uint8Array(150_000), 16_384), {
      name: 'big.bin',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('payload_too_large');
    expect((error as AppError).status).toBe(413);
    expect(await keysOf(runtime.files.store)).toEqual(before);
    expect((await runtime.database.db.select().from(storedFiles)).length).toBe(rows);
    await expect(receiveFile(ctx(), org, new Uint8Array(100_001), { name: 'x' })).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('accepts a file of exactly FILE_MAX_BYTES and an empty one', async () => {
    expect((await receiveFile(ctx(), org, chunked(new Uint8Array(100_000), 9999), { name: 'x' })).size).toBe(
      100_000,
    );
    const empty = await receiveFile(ctx(), org, new Uint8Array(0), { name: '' });
    expect(empty).toMatchObject({ size: 0, name: 'file', sha256: sha256(new Uint8Array(0)) });
  });
});

describe('file names', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['  .hidden  ', 'hidden'],
    ['a"b<c>d|e?.txt', 'abcde.txt'],
    ['evil\u202egnp.exe', 'evilgnp.exe'],
    ['line\r\nbreak.txt', 'linebreak.txt'],
    ['CON.txt', '_CON.txt'],
    ['...', 'file'],
    [`${'x'.repeat(300)}.pdf`, `${'x'.repeat(196)}.pdf`],
  ])('%j becomes %j', (raw, clean) => {
    expect(sanitizeFileName(raw)).toBe(clean);
  });
});

describe('download links', () => {
  const files = { linkSecret: 'a secret of at least sixteen characters', publicUrl: 'https://c.example.com' };
  const now = new Date('2026-11-26T10:00:00.000Z');
  const claims = {
    organizationId: 'org_aaaaaaaaaaaaaaaaaaaaaaaa',
    fileId: 'fil_bbbbbbbbbbbbbbbbbbbbbbbb',
    subjectId: 'evd_cccccccccccccccccccccccc',
  };
  const link = () => downloadLink({ files: files as never, now: () => now }, claims);
  const tokenOf = (url: string) => url.slice('https://c.example.com/files/'.length);

  it('is bound to the organization, the file, the subject and ten minutes', async () => {
    const { url, expires_at } = await link();
    expect(url.startsWith('https://c.example.com/files/fil_')).toBe(true);
    expect(expires_at).toBe('2026-11-26T10:10:00.000Z');
    expect(await verifyLink(files.linkSecret, tokenOf(url), now)).toEqual({
      ...claims,
      expires: Date.parse(expires_at) / 1000,
    });
    expect(await verifyLink(files.linkSecret, tokenOf(url), new Date(Date.parse(expires_at)))).toBeNull();
    expect(await verifyLink('another secret of sixteen+', tokenOf(url), now)).toBeNull();
  });

  it('fails when any part is altered', async () => {
    const token = tokenOf((await link()).url);
    const altered = [
      token.replace(claims.fileId, 'fil_dddddddddddddddddddddddd'),
      token.replace(claims.organizationId, 'org_dddddddddddddddddddddddd'),
      token.replace(claims.subjectId, 'evd_dddddddddddddddddddddddd'),
      token.replace(/\.(\d+)\./, (_, seconds: string) => `.${Number(seconds) + 3600}.`),
      `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
      `${token}x`,
      'garbage',
    ];
    for (const candidate of altered) expect(await verifyLink(files.linkSecret, candidate, now)).toBeNull();
  });
});

describe('upkeep', () => {
  let runtime: TestRuntime;
  let org: string;
  beforeAll(async () => {
    runtime = await createTestRuntime();
    org = await createOrg(runtime, await createActor(runtime));
    await runtime.database.client.execute('create table upkeep_refs (file_id text)');
  });
  afterAll(() => runtime.cleanup());
  const ctx = () => ({ db: runtime.database.db, files: runtime.files, now: () => new Date() });
  const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000);
  const referrers = [{ table: 'upkeep_refs', column: 'file_id' }];

  it('removes blobs without a row after an hour, and unreferenced rows (then their blobs) after a day', async () => {
    const kept = await receiveFile(ctx(), org, new TextEncoder().encode('kept'), { name: 'kept.txt' });
    const dropped = await receiveFile(ctx(), org, new TextEncoder().encode('dropped'), {
      name: 'dropped.txt',
    });
    await runtime.database.client.execute({ sql: 'insert into upkeep_refs values (?)', args: [kept.id] });
    const orphan = newStorageKey();
    await runtime.files.store.put(orphan, streamOf(new Uint8Array(10)), { contentType: 'x' });
    const store = runtime.files.store;
    const rows = async () =>
      (await runtime.database.db.select().from(storedFiles)).map((row) => row.id).sort();

    expect(await fileUpkeep(runtime.database.db, store, new Date(), referrers)).toEqual({
      rowsDeleted: 0,
      blobsDeleted: 0,
    });
    expect(await fileUpkeep(runtime.database.db, store, hoursFromNow(2), referrers)).toEqual({
      rowsDeleted: 0,
      blobsDeleted: 1,
    });
    expect(await store.get(orphan)).toBeNull();
    expect((await keysOf(store)).length).toBe(2);
    expect(await fileUpkeep(runtime.database.db, store, hoursFromNow(25), referrers)).toEqual({
      rowsDeleted: 1,
      blobsDeleted: 0,
    });
    expect(await rows()).toEqual([kept.id]);
    expect((await keysOf(store)).length).toBe(1);
    expect(dropped.id).not.toBe(kept.id);
  });
});
