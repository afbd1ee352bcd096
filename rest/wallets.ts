// REST routes of wallets (spec §4.1).
import { bucket, from, type Route } from './route';

export const walletRoutes: Route[] = [
  {
    method: 'POST',
    path: '/agents/:agentId/wallet',
    bucket: bucket('wallet_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Wallets',
    summary: "Create an agent's wallet",
    description:
      'For the caller or one of its sub-agents (any other agent is 404); one wallet per agent (a second answers 409). No body is read. Sandbox mode reaches no chain: the address names the wallet in the marketplace, on `base-sepolia`, in USDC.',
    errors: [404, 409],
    document: /* GraphQL */ `mutation CreateWallet($agentId: ID!) {
      createWallet(agentId: $agentId) {
        wallet_address: walletAddress agent_id: agentId network asset balance created_at: createdAt
      }
    }`,
    variables: { agentId: from.path('agentId') },
  },
  {
    method: 'GET',
    path: '/agents/:agentId/wallet',
    bucket: bucket('wallet_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Wallets',
    summary: "An agent's wallet and balance",
    description: '`balance` is a decimal string in USDC with all 6 decimals; `balance_base_units` the same in millionths. 404 when the agent has no wallet.',
    errors: [404],
    document: /* GraphQL */ `query Wallet($agentId: ID!) {
      wallet(agentId: $agentId) {
        wallet_address: walletAddress agent_id: agentId network asset balance balance_base_units: balanceBaseUnits created_at: createdAt
      }
    }`,
    variables: { agentId: from.path('agentId') },
  },
];
