// A remote x402 facilitator for tests: the official x402Facilitator with the exact-EVM scheme, speaking the
// standard verify/settle API over HTTPS on loopback, settling on a small in-memory chain (token balances by
// address, used nonces) that a test funds and inspects. It stands for Coinbase's or anyone's facilitator.
import { randomBytes } from 'node:crypto';
import { x402Facilitator } from '@x402/core/facilitator';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { startHttpsServer, type HttpsTestServer } from './https';

export interface TestFacilitator extends HttpsTestServer {
  /** Token balances by lower-case address. */
  balances: Map<string, bigint>;
  /** How many verify and settle requests it answered. */
  requests: { verify: number; settle: number };
  /** While set, every request is answered with this HTTP status and no JSON (the facilitator is down). */
  failWith?: number;
}

export async function startFacilitator(asset: string): Promise<TestFacilitator> {
  const balances = new Map<string, bigint>();
  const used = new Set<string>();
  const pending = new Map<string, { from: string; to: string; value: bigint }>();
  const chain = {
    getAddresses: () => ['0x000000000000000000000000000000000000fac1'] as const,
    getCode: async ({ address }: { address: string }) => (address.toLowerCase() === asset.toLowerCase() ? '0x6080' : '0x'),
    verifyTypedData: async () => false,
    sendTransaction: async () => {
      throw new Error('not supported');
    },
    readContract: async ({ functionName, args = [] }: { functionName: string; args?: readonly unknown[] }) => {
      const [from, , value, , , nonce] = args as [string, string, bigint, bigint, bigint, string];
      switch (functionName) {
        case 'transferWithAuthorization':
          if (used.has(`${from.toLowerCase()}:${nonce}`)) throw new Error('FiatTokenV2: authorization is used or canceled');
          if ((balances.get(from.toLowerCase()) ?? 0n) < value) throw new Error('ERC20: transfer amount exceeds balance');
          return undefined;
        case 'balanceOf':
          return balances.get(String(args[0]).toLowerCase()) ?? 0n;
        default:
          throw new Error(`execution reverted: ${functionName}`);
      }
    },
    writeContract: async ({ args }: { args: readonly unknown[] }) => {
      const [from, to, value, , , nonce] = args as [string, string, bigint, bigint, bigint, string];
      const key = `${from.toLowerCase()}:${nonce}`;
      if (used.has(key)) throw new Error('FiatTokenV2: authorization is used or canceled');
      const balance = balances.get(from.toLowerCase()) ?? 0n;
      if (balance < value) throw new Error('ERC20: transfer amount exceeds balance');
      used.add(key);
      balances.set(from.toLowerCase(), balance - value);
      balances.set(to.toLowerCase(), (balances.get(to.toLowerCase()) ?? 0n) + value);
      const hash = `0x${randomBytes(32).toString('hex')}`;
      pending.set(hash, { from, to, value });
      return hash;
    },
    waitForTransactionReceipt: async ({ hash }: { hash: string }) => ({ status: pending.has(hash) ? 'success' : 'reverted' }),
  };
  const facilitator = new x402Facilitator().register('eip155:84532', new ExactEvmScheme(chain as never));
  const requests = { verify: 0, settle: 0 };
  let self: TestFacilitator;
  const server = await startHttpsServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (self.failWith) {
        res.writeHead(self.failWith).end('down');
        return;
      }
      const path = (req.url ?? '').replace(/^\//, '') as 'verify' | 'settle';
      if (req.method !== 'POST' || (path !== 'verify' && path !== 'settle')) {
        res.writeHead(404).end();
        return;
      }
      requests[path] += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const answer = await facilitator[path](body.paymentPayload, body.paymentRequirements);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  self = Object.assign(server, { balances, requests });
  return self;
}
