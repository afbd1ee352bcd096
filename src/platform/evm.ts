// viem (EVM keys, EIP-712 signatures, ABI encoding), loaded on first use: its CommonJS build, the one
// @x402/evm loads too (it publishes ESM types only, hence the `typeof import` types). A start that signs
// nothing loads none of it.
import { onFirstUse } from './lazy';
type Viem = typeof import('viem', { with: { 'resolution-mode': 'import' } });
type ViemAccounts = typeof import('viem/accounts', { with: { 'resolution-mode': 'import' } });

export type Hex = `0x${string}`;
export type EvmAccount = ReturnType<ViemAccounts['privateKeyToAccount']>;

/** viem and viem/accounts. */
export const evm = onFirstUse(() => ({ viem: require('viem') as Viem, accounts: require('viem/accounts') as ViemAccounts }));
