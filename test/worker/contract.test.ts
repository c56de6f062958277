// The host contract (test/contract) against the Worker entry in workerd: libSQL over HTTP, tokens cached in KV.
import { exports } from 'cloudflare:workers';
import { inject } from 'vitest';
import { type ContractHost, describeContract } from '../contract/index.ts';

const host: ContractHost = {
  fetch: (request) => exports.default.fetch(request),
  world: inject('contractWorld'),
};

describeContract(() => host);
