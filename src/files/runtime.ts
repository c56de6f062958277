// The FileRuntime a host gives its runtime: store, FILE_MAX_BYTES, link secret and streaming SHA-256.
import type { Config } from '../config.ts';
import { digestStreamSha256, hasDigestStream } from './digest-stream.ts';
import {
  type BlobStore,
  createMemoryBlobStore,
  type FileRuntime,
  randomLinkSecret,
  type Sha256Stream,
  unconfiguredBlobStore,
} from './store.ts';
import { createUploadRate, NO_UPLOAD_LIMITS } from './upload-limits.ts';

function noStreamingSha256(): Sha256Stream {
  throw new Error('This runtime has no streaming SHA-256: the host passes one (files.sha256).');
}

/** The settings part of a FileRuntime from the configuration, with the host's store and hasher. */
/** The settings a FileRuntime is made from. */
export type FileSettings = Pick<
  Config,
  | 'fileMaxBytes'
  | 'filesLinkSecret'
  | 'publicUrl'
  | 'orgFilesQuotaBytes'
  | 'uploadsPerMinute'
  | 'uploadBytesPerMinute'
>;

export function fileRuntime(
  config: FileSettings,
  store: BlobStore,
  sha256: () => Sha256Stream = hasDigestStream() ? digestStreamSha256 : noStreamingSha256,
): FileRuntime {
  return {
    store,
    maxBytes: config.fileMaxBytes,
    orgQuotaBytes: config.orgFilesQuotaBytes,
    uploadRate: createUploadRate(config),
    linkSecret: config.filesLinkSecret ?? randomLinkSecret(),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    sha256,
  };
}

/** A runtime's files when its host gives none: blobs in memory (tests, scratch runtimes). */
export function memoryFileRuntime(config: FileSettings): FileRuntime {
  return fileRuntime(config, createMemoryBlobStore());
}

/** For contexts built where no runtime is at hand (CLI imports, display lookups): any use of files fails. */
export const NO_FILES: FileRuntime = {
  store: unconfiguredBlobStore('No file store here: stored files are reached through the server.'),
  maxBytes: 0,
  orgQuotaBytes: 0,
  uploadRate: NO_UPLOAD_LIMITS,
  // No secret: links cannot be made here (and nothing random at module load, which workerd refuses).
  linkSecret: '',
  sha256: noStreamingSha256,
};
