// Stored files in workerd: the R2 binding (miniflare's local bucket), SHA-256 by crypto.DigestStream, upload and
// signed download through the Worker entry, organization isolation, 413 over FILE_MAX_BYTES, upkeep.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { downloadLink } from '../../src/files/links.ts';
import { newStorageKey, streamOf } from '../../src/files/store.ts';
import { fileUpkeep } from '../../src/files/upkeep.ts';
import worker, { type Env, runtimeFor } from '../../src/worker.ts';
import { UPLOAD_READ_BYTES, withUploadReads } from '../../src/worker-uploads.ts';
import { BASE } from '../contract/host.ts';
import { world } from './helpers.ts';

interface UploadAnswer {
  file: { id: string; name: string; size: number; content_type: string; sha256: string };
  error: { code: string; message: string };
}

async function hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const bytesOf = (size: number) => new Uint8Array(size).map((_, index) => (index * 13) % 256);

async function upload(org: string, token: string, body: BodyInit, query = '?name=scan.bin') {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/v1/orgs/${org}/files${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body,
    }),
  );
  return { status: response.status, json: (await response.json()) as UploadAnswer };
}

function link(org: string, fileId: string) {
  return downloadLink(
    { files: runtimeFor(env).files, now: () => new Date() },
    { organizationId: org, fileId, subjectId: 'evd_aaaaaaaaaaaaaaaaaaaaaaaa', baseUrl: BASE },
  );
}

describe('stored files on the Worker (R2)', () => {
  it('stores an upload in R2 with its SHA-256 and sniffed type, and serves it through a signed link', async () => {
    const pdf = new TextEncoder().encode('%PDF-1.7\nbody of the report\n');
    const { status, json } = await upload(world.orgIsolation, world.tokens.alice, pdf, '?name=pentest.pdf');
    expect(status).toBe(201);
    expect(json.file).toMatchObject({
      name: 'pentest.pdf',
      size: pdf.byteLength,
      content_type: 'application/pdf',
      sha256: await hex(pdf),
    });
    const response = await exports.default.fetch(
      new Request((await link(world.orgIsolation, json.file.id)).url),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="pentest.pdf"; filename*=UTF-8''pentest.pdf`,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([...pdf]);
  });

  it('takes a file larger than one part as an R2 multipart upload, and serves ranges of it', async () => {
    const bytes = bytesOf(9 * 1024 * 1024 + 123);
    const { json } = await upload(world.orgIsolation, world.tokens.alice, bytes);
    expect(json.file).toMatchObject({ size: bytes.byteLength, sha256: await hex(bytes) });
    const url = (await link(world.orgIsolation, json.file.id)).url;
    const whole = await exports.default.fetch(new Request(url));
    expect(await hex(new Uint8Array(await whole.arrayBuffer()))).toBe(await hex(bytes));
    const part = await exports.default.fetch(
      new Request(url, { headers: { range: 'bytes=8388600-8388615' } }),
    );
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 8388600-8388615/${bytes.byteLength}`);
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([...bytes.slice(8_388_600, 8_388_616)]);
  });

  it("reads an upload's body in chunks of UPLOAD_READ_BYTES and leaves other requests as they are", async () => {
    const bytes = bytesOf(1024 * 1024 + 5);
    const path = `${BASE}/api/v1/orgs/${world.orgIsolation}/files?name=big.bin`;
    const wrapped = withUploadReads(new Request(path, { method: 'POST', body: bytes }));
    const sizes: number[] = [];
    const received: Uint8Array[] = [];
    for await (const chunk of wrapped.body as unknown as AsyncIterable<Uint8Array>) {
      sizes.push(chunk.byteLength);
      received.push(chunk);
    }
    expect(Math.max(...sizes)).toBe(UPLOAD_READ_BYTES);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(bytes.byteLength);
    const joined = new Uint8Array(bytes.byteLength);
    let at = 0;
    for (const chunk of received) {
      joined.set(chunk, at);
      at += chunk.byteLength;
    }
    expect(await hex(joined)).toBe(await hex(bytes));
    const query = new Request(`${BASE}/api/v1/orgs/${world.orgIsolation}/files`);
    expect(withUploadReads(query)).toBe(query);
    const call = new Request(`${BASE}/api/mcp/tools/listOrganizations`, { method: 'POST', body: '{}' });
    expect(withUploadReads(call)).toBe(call);
  });

  it('stores the file field of a multipart body', async () => {
    const form = new FormData();
    form.append('note', 'x');
    form.append('file', new Blob(['a,b\n1,2\n']), 'risks.csv');
    const { status, json } = await upload(world.orgIsolation, world.tokens.alice, form, '');
    expect(status).toBe(201);
    expect(json.file).toMatchObject({ name: 'risks.csv', size: 8, content_type: 'text/csv; charset=utf-8' });
  });

  it("keeps organizations apart: no upload into another's, no download of another's file by an altered link", async () => {
    const other = await upload(world.orgIsolation, world.tokens.bob, 'x');
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe('not_found');
    const mine = (await upload(world.orgIsolation, world.tokens.alice, 'alpha')).json.file;
    const bobs = (await upload(world.orgBob, world.tokens.bob, 'beta')).json.file;
    const url = (await link(world.orgIsolation, mine.id)).url;
    const altered = await exports.default.fetch(new Request(url.replace(mine.id, bobs.id)));
    expect(altered.status).toBe(404);
    const crossed = await exports.default.fetch(new Request((await link(world.orgIsolation, bobs.id)).url));
    expect(crossed.status).toBe(404);
    expect(await crossed.json()).toEqual(await altered.json());
  });

  it('answers 413 over FILE_MAX_BYTES, announced or streamed', async () => {
    const bindings: Env = { ...env, FILE_MAX_BYTES: '1000' };
    const send = async (body: BodyInit) => {
      const ctx = createExecutionContext();
      const fetch = worker.fetch as unknown as (r: Request, e: Env, c: ExecutionContext) => Promise<Response>;
      const response = await fetch(
        new Request(`${BASE}/api/v1/orgs/${world.orgIsolation}/files?name=big.bin`, {
          method: 'POST',
          headers: { authorization: `Bearer ${world.tokens.alice}` },
          body,
        }),
        bindings,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { status: response.status, body: (await response.json()) as UploadAnswer };
    };
    const announced = await send(bytesOf(1001));
    expect(announced.status).toBe(413);
    expect(announced.body.error.code).toBe('payload_too_large');
    const streamed = await send(
      new ReadableStream({
        start(controller) {
          for (let index = 0; index < 5; index++) controller.enqueue(bytesOf(300));
          controller.close();
        },
      }),
    );
    expect(streamed.status).toBe(413);
    expect((await send(bytesOf(1000))).status).toBe(201);
    runtimeFor(env);
  });

  it('upkeep removes a blob without a row once it is an hour old, and keeps the others', async () => {
    const { store } = runtimeFor(env).files;
    const orphan = newStorageKey();
    await store.put(orphan, streamOf(new Uint8Array(5)), { contentType: 'application/octet-stream' });
    const kept = (await upload(world.orgIsolation, world.tokens.alice, 'kept')).json.file;
    const result = await fileUpkeep(
      runtimeFor(env).database.db,
      store,
      new Date(Date.now() + 2 * 3_600_000),
      [],
    );
    expect(result.blobsDeleted).toBeGreaterThanOrEqual(1);
    expect(await store.get(orphan)).toBeNull();
    // Rows are a day from removal: the file uploaded just now is still there, blob and row.
    const response = await exports.default.fetch(new Request((await link(world.orgIsolation, kept.id)).url));
    expect(await response.text()).toBe('kept');
  });
});
