// Node host's files: a directory (FILES_DIR) or an S3-compatible bucket (FILES_S3_*), hashed by node:crypto.
import type { Config } from '../config.ts';
import { createDiskBlobStore } from './disk.ts';
import { nodeSha256Stream } from './node-hash.ts';
import { fileRuntime } from './runtime.ts';
import { createS3BlobStore } from './s3.ts';
import type { FileRuntime } from './store.ts';

export function nodeFileRuntime(config: Config): FileRuntime {
  const store = config.filesS3 ? createS3BlobStore(config.filesS3) : createDiskBlobStore(config.filesDir);
  return fileRuntime(config, store, nodeSha256Stream);
}
