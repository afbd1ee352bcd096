// The first-party table's old path, for src/domain/execution's imports alone: the table is in
// src/domain/first-party/first-party.ts, its types in types.ts there. This file goes when execution names them.
export { FIRST_PARTY, firstPartyInput, MARKETPLACE_PROVIDER, servedHere } from '../../first-party/first-party';
export type { FirstPartyCapability, GenericCapability, ModelUsage, OwnCapability } from '../../first-party/types';
