// viem (EVM keys, EIP-712 signatures, ABI encoding) publishes ESM types only, so this CommonJS code loads
// it once with a dynamic import at start-up (loadEvm) and reads it synchronously afterwards (evm).
type Viem = typeof import('viem', { with: { 'resolution-mode': 'import' } });
type ViemAccounts = typeof import('viem/accounts', { with: { 'resolution-mode': 'import' } });

export type Hex = `0x${string}`;
export type EvmAccount = ReturnType<ViemAccounts['privateKeyToAccount']>;

let loaded: { viem: Viem; accounts: ViemAccounts } | undefined;

export async function loadEvm(): Promise<{ viem: Viem; accounts: ViemAccounts }> {
  loaded ??= { viem: await import('viem'), accounts: await import('viem/accounts') };
  return loaded;
}

/** viem, once loadEvm has run (the application loads it before serving). */
export function evm(): { viem: Viem; accounts: ViemAccounts } {
  if (!loaded) throw new Error('viem is not loaded yet: await loadEvm() first');
  return loaded;
}
