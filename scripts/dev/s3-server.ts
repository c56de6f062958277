// A minimal S3-compatible server on loopback, to test the S3 BlobStore (src/files/s3.ts) without the internet: objects
// in memory, PUT/GET (Range)/DELETE, ListObjectsV2 with pagination, multipart uploads; every request's AWS Signature
// Version 4 checked by this file's own implementation (node:crypto), not aws4fetch's, and the payload's hash checked
// against the bytes received. Development and tests only.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface S3TestServer {
  /** The bucket's URL, path style: http://127.0.0.1:<port>/<bucket>. */
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  objects: Map<string, { bytes: Buffer; modified: Date }>;
  /** Requests refused for a bad signature or payload hash. */
  refused(): number;
  close(): Promise<void>;
}

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept, everything else %XX upper case). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

/** Whether the request carries a valid SigV4 Authorization for these keys, over the body received. */
export function verifySigV4(
  req: IncomingMessage,
  body: Buffer,
  keys: { accessKeyId: string; secretAccessKey: string; region: string },
): boolean {
  const auth = req.headers.authorization ?? '';
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!match) return false;
  const [, accessKeyId, date, region, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== keys.accessKeyId || region !== keys.region) return false;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date as string)) return false;
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body)) return false;
  const names = (signedHeaders as string).split(';');
  if (!names.includes('host')) return false;
  const url = new URL(req.url ?? '/', 'http://x');
  const canonicalHeaders = names
    .map((name) => {
      const value = req.headers[name];
      return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalRequest = [
    req.method,
    url.pathname,
    canonicalQuery(url.searchParams),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${keys.secretAccessKey}`, date as string), region as string), 's3'),
    'aws4_request',
  );
  const expected = hmac(signingKey, stringToSign);
  return timingSafeEqual(expected, Buffer.from(signature as string, 'hex'));
}

function xml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startS3TestServer(
  options: {
    bucket?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    region?: string;
    pageSize?: number;
  } = {},
): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'files';
  const keys = {
    accessKeyId: options.accessKeyId ?? 'TESTACCESSKEY',
    secretAccessKey: options.secretAccessKey ?? 'test secret access key',
    region: options.region ?? 'auto',
  };
  const pageSize = options.pageSize ?? 1000;
  const objects = new Map<string, { bytes: Buffer; modified: Date }>();
  const uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  let refused = 0;
  let nextUpload = 0;

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (!verifySigV4(req, body, keys)) {
      refused += 1;
      xml(res, 403, '<Error><Code>SignatureDoesNotMatch</Code></Error>');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const prefix = `/${bucket}/`;
    if (!url.pathname.startsWith(prefix) && url.pathname !== `/${bucket}`) {
      xml(res, 404, '<Error><Code>NoSuchBucket</Code></Error>');
      return;
    }
    const key = decodeURIComponent(url.pathname.slice(prefix.length));
    const query = url.searchParams;
    const uploadId = query.get('uploadId');

    if (req.method === 'GET' && key === '') {
      const all = [...objects.keys()].filter((name) => name.startsWith(query.get('prefix') ?? '')).sort();
      const after = query.get('continuation-token') ?? '';
      const page = all.filter((name) => name > after).slice(0, pageSize);
      const truncated = all.filter((name) => name > after).length > page.length;
      const contents = page
        .map(
          (name) =>
            `<Contents><Key>${escapeXml(name)}</Key><LastModified>${objects.get(name)?.modified.toISOString()}</LastModified><Size>${objects.get(name)?.bytes.length}</Size></Contents>`,
        )
        .join('');
      const next = truncated
        ? `<NextContinuationToken>${escapeXml(page.at(-1) ?? '')}</NextContinuationToken>`
        : '';
      xml(
        res,
        200,
        `<ListBucketResult><Name>${bucket}</Name><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
      );
      return;
    }
    if (req.method === 'POST' && query.has('uploads')) {
      const id = `upload-${++nextUpload}`;
      uploads.set(id, { key, parts: new Map() });
      xml(
        res,
        200,
        `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${escapeXml(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
      );
      return;
    }
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload || upload.key !== key) {
        xml(res, 404, '<Error><Code>NoSuchUpload</Code></Error>');
        return;
      }
      if (req.method === 'PUT') {
        const number = Number(query.get('partNumber'));
        upload.parts.set(number, body);
        res.writeHead(200, { etag: `"${sha256Hex(body).slice(0, 32)}"` });
        res.end();
        return;
      }
      if (req.method === 'POST') {
        const numbers = [...body.toString('utf8').matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) =>
          Number(m[1]),
        );
        const parts = numbers.map((number) => upload.parts.get(number));
        if (parts.some((part) => part === undefined)) {
          xml(res, 400, '<Error><Code>InvalidPart</Code></Error>');
          return;
        }
        objects.set(key, { bytes: Buffer.concat(parts as Buffer[]), modified: new Date() });
        uploads.delete(uploadId);
        xml(
          res,
          200,
          `<CompleteMultipartUploadResult><Key>${escapeXml(key)}</Key></CompleteMultipartUploadResult>`,
        );
        return;
      }
      if (req.method === 'DELETE') {
        uploads.delete(uploadId);
        res.writeHead(204).end();
        return;
      }
    }
    if (req.method === 'PUT') {
      objects.set(key, { bytes: body, modified: new Date() });
      res.writeHead(200, { etag: `"${sha256Hex(body).slice(0, 32)}"` }).end();
      return;
    }
    if (req.method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET') {
      const object = objects.get(key);
      if (!object) {
        xml(res, 404, '<Error><Code>NoSuchKey</Code></Error>');
        return;
      }
      const size = object.bytes.length;
      const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
      if (range) {
        const start = Number(range[1]);
        const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
        res.writeHead(206, {
          'content-range': `bytes ${start}-${end}/${size}`,
          'content-length': end - start + 1,
        });
        res.end(object.bytes.subarray(start, end + 1));
        return;
      }
      res.writeHead(200, { 'content-length': size });
      res.end(object.bytes);
      return;
    }
    xml(res, 400, '<Error><Code>NotImplemented</Code></Error>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/${bucket}`,
    ...keys,
    objects,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
