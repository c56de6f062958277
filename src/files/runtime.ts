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

function noStreamingSha256(): Sha256Stream {
  throw new Error('This runtime has no streaming SHA-256: the host passes one (files.sha256).');
}

/** The settings part of a FileRuntime from the configuration, with the host's store and hasher. */
export function fileRuntime(
  config: Pick<Config, 'fileMaxBytes' | 'filesLinkSecret' | 'publicUrl'>,
  store: BlobStore,
  sha256: () => Sha256Stream = hasDigestStream() ? digestStreamSha256 : noStreamingSha256,
): FileRuntime {
  return {
    store,
    maxBytes: config.fileMaxBytes,
    linkSecret: config.filesLinkSecret ?? randomLinkSecret(),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    sha256,
  };
}

/** A runtime's files when its host gives none: blobs in memory (tests, scratch runtimes). */
export function memoryFileRuntime(
  config: Pick<Config, 'fileMaxBytes' | 'filesLinkSecret' | 'publicUrl'>,
): FileRuntime {
  return fileRuntime(config, createMemoryBlobStore());
}

/** For contexts built where no runtime is at hand (CLI imports, display lookups): any use of files fails. */
export const NO_FILES: FileRuntime = {
  store: unconfiguredBlobStore('No file store here: stored files are reached through the server.'),
  maxBytes: 0,
  linkSecret: randomLinkSecret(),
  sha256: noStreamingSha256,
};
