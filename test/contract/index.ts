// The whole host contract, registered once per host: test/core/contract.node.test.ts and test/worker/*.test.ts.
import { describeAuthContract } from './auth.ts';
import type { HostRef } from './host.ts';
import { describeIsolationContract } from './isolation.ts';
import { describePaginationContract } from './pagination.ts';
import { describeToolContract } from './tools.ts';

export type { ContractHost, ContractWorld, HostRef } from './host.ts';
export { describeAuthContract, describeIsolationContract, describePaginationContract, describeToolContract };

export function describeContract(hostRef: HostRef): void {
  describeToolContract(hostRef);
  describeAuthContract(hostRef);
  describeIsolationContract(hostRef);
  describePaginationContract(hostRef);
}
