// Any S3-compatible bucket (R2's S3 API, AWS S3, MinIO) as a BlobStore, by URL and keys, signed with aws4fetch (Web
// APIs only: runs on both hosts). Bodies go up in parts of PART_BYTES, one part in memory at a time.
import { AwsClient } from 'aws4fetch';
import type { S3Settings } from '../config.ts';
import { type BlobStore, checkStorageKey, isStorageKey, partsOf } from './store.ts';

/** S3's smallest part is 5 MiB (but the last); R2 wants equal parts. */
export const PART_BYTES = 8 * 1024 * 1024;

function xmlValues(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((match) =>
    unescapeXml(match[1] ?? ''),
  );
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function createS3BlobStore(settings: S3Settings, options: { partBytes?: number } = {}): BlobStore {
  const partBytes = options.partBytes ?? PART_BYTES;
  const client = new AwsClient({
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    region: settings.region,
    service: 's3',
    retries: 2,
  });
  const bucket = settings.url.replace(/\/+$/, '');
  const objectUrl = (key: string, query = '') => `${bucket}/${checkStorageKey(key)}${query}`;

  async function call(url: string, init: RequestInit, ok: (status: number) => boolean = (s) => s < 300) {
    const response = await client.fetch(url, init);
    if (!ok(response.status)) {
      await response.body?.cancel();
      throw new Error(`The S3 store answered ${response.status} to ${init.method ?? 'GET'}.`);
    }
    return response;
  }

  async function multipart(
    key: string,
    first: Uint8Array<ArrayBuffer>,
    rest: AsyncGenerator<Uint8Array<ArrayBuffer>>,
    contentType: string,
  ) {
    const created = await call(objectUrl(key, '?uploads'), {
      method: 'POST',
      headers: { 'content-type': contentType },
    });
    const uploadId = xmlValues(await created.text(), 'UploadId')[0];
    if (!uploadId) throw new Error('The S3 store gave no UploadId.');
    const query = (extra: string) => `?${extra}uploadId=${encodeURIComponent(uploadId)}`;
    try {
      const etags: string[] = [];
      const send = async (part: Uint8Array<ArrayBuffer>) => {
        const answered = await call(objectUrl(key, query(`partNumber=${etags.length + 1}&`)), {
          method: 'PUT',
          body: part,
        });
        await answered.body?.cancel();
        etags.push(answered.headers.get('etag') ?? '');
      };
      await send(first);
      for await (const part of rest) await send(part);
      const body = `<CompleteMultipartUpload>${etags
        .map(
          (etag, index) =>
            `<Part><PartNumber>${index + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`,
        )
        .join('')}</CompleteMultipartUpload>`;
      const completed = await call(objectUrl(key, query('')), { method: 'POST', body });
      const text = await completed.text();
      // S3 may answer 200 with an error document when completing.
      if (text.includes('<Error>')) throw new Error('The S3 store refused to complete the upload.');
    } catch (error) {
      await client.fetch(objectUrl(key, query('')), { method: 'DELETE' }).then(
        (response) => response.body?.cancel(),
        () => undefined,
      );
      throw error;
    }
  }

  return {
    async put(key, body, { contentType }) {
      const parts = partsOf(body, partBytes);
      const first = await parts.next();
      const firstPart = first.done ? new Uint8Array(0) : first.value;
      if (firstPart.byteLength < partBytes) {
        await parts.return(undefined);
        const answered = await call(objectUrl(key), {
          method: 'PUT',
          body: firstPart,
          headers: { 'content-type': contentType },
        });
        await answered.body?.cancel();
        return;
      }
      await multipart(key, firstPart, parts, contentType);
    },

    async get(key, range) {
      const headers: Record<string, string> = {};
      if (range) headers.range = `bytes=${range.start}-${range.end ?? ''}`;
      const response = await call(objectUrl(key), { method: 'GET', headers }, (s) => s < 300 || s === 404);
      if (response.status === 404 || !response.body) {
        await response.body?.cancel();
        return null;
      }
      const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1];
      const size = Number(total ?? response.headers.get('content-length') ?? 0);
      return { body: response.body as ReadableStream<Uint8Array>, size };
    },

    async delete(key) {
      const response = await call(objectUrl(key), { method: 'DELETE' }, (s) => s < 300 || s === 404);
      await response.body?.cancel();
    },

    async *list(prefix = '') {
      let token: string | undefined;
      do {
        const query = new URLSearchParams({ 'list-type': '2', prefix });
        if (token) query.set('continuation-token', token);
        const response = await call(`${bucket}/?${query}`, { method: 'GET' });
        const xml = await response.text();
        for (const contents of xml.split('<Contents>').slice(1)) {
          const key = xmlValues(contents, 'Key')[0] ?? '';
          const modified = xmlValues(contents, 'LastModified')[0];
          if (isStorageKey(key) && modified) yield { key, uploadedAt: new Date(modified) };
        }
        token =
          xmlValues(xml, 'IsTruncated')[0] === 'true'
            ? xmlValues(xml, 'NextContinuationToken')[0]
            : undefined;
      } while (token);
    },
  };
}
