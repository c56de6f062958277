// Records of every kind and valid sample arguments for every tool, for the in-process Node suites: the host-neutral
// generators of test/contract/samples.ts, called through the app's own fetch.
import type { Runtime } from '../src/runtime.ts';
import * as samples from './contract/samples.ts';
import { fetcherOf } from './helpers.ts';

export { exampleArguments, type RecordIds, specOf, UPDATE_SAMPLE } from './contract/samples.ts';

/** Adds one record of every kind to the organization and returns their ids. */
export function seedRecords(
  runtime: Runtime,
  token: string,
  organizationId: string,
): Promise<samples.RecordIds> {
  return samples.seedRecords(fetcherOf(runtime), token, organizationId);
}

/** Valid arguments for a tool; delete tools get a fresh record of their own. */
export function sampleArguments(
  runtime: Runtime,
  token: string,
  toolName: string,
  organizationId: string,
  ids: samples.RecordIds,
): Promise<Record<string, unknown>> {
  return samples.sampleArguments(fetcherOf(runtime), token, toolName, organizationId, ids);
}
