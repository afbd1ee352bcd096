// REST routes of wallets (spec §4.1).
import { bucket, from, type Route } from './route';

const walletFields = /* GraphQL */ `
  fragment WalletFields on Wallet {
    wallet_address: walletAddress
    agent_id: agentId
    network
    asset
    key_custody: keyCustody
    balance
    balance_base_units: balanceBaseUnits
    held
    held_base_units: heldBaseUnits
    pending
    pending_base_units: pendingBaseUnits
    available
    available_base_units: availableBaseUnits
    created_at: createdAt
  }
`;

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
      "For the caller or one of its sub-agents (any other agent is 404); one wallet per agent (a second answers 409). Without a body the marketplace generates the wallet's key and keeps it encrypted, so that it can sign sandbox test payments; with `address` the agent registers its own address and signs its own payments (another wallet's address is 409). Sandbox mode reaches no chain: the ledger plays it, on `base-sepolia`, in USDC; there a wallet opens credited the starting balance (SANDBOX_STARTING_BALANCE, whichever way it is opened: here, or by the agent's first paid call, test payment or faucet credit).",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CreateWallet($agentId: ID!, $address: String) {
        createWallet(agentId: $agentId, input: { address: $address }) {
          ...WalletFields
        }
      }
      ${walletFields}
    `,
    variables: { agentId: from.path('agentId'), address: from.bodyField('address') },
  },
  {
    method: 'GET',
    path: '/agents/:agentId/wallet',
    bucket: bucket('wallet_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Wallets',
    summary: "An agent's wallet and balance",
    description:
      "`balance` is a decimal string in USDC with all 6 decimals, `balance_base_units` the same in millionths; `held` is what calls in flight reserve, `pending` what paid calls earned that is still inside its dispute window (part of the balance, available once the window ends: DISPUTE_WINDOW_SECONDS, docs/payments.md Escrow), and `available` what calls may spend now (the balance less held and pending). 404 when the agent has no wallet (a read opens none: it opens when created, or at the agent's first paid call, test payment or faucet credit).",
    errors: [404],
    document: /* GraphQL */ `
      query Wallet($agentId: ID!) {
        wallet(agentId: $agentId) {
          ...WalletFields
        }
      }
      ${walletFields}
    `,
    variables: { agentId: from.path('agentId') },
  },
  {
    method: 'GET',
    path: '/agents/:agentId/wallet/entries',
    bucket: bucket('wallet_entries', 60),
    auth: 'agent',
    status: 200,
    tag: 'Wallets',
    summary: "An agent wallet's ledger",
    description:
      'Newest first. Every movement is a transfer whose entries (across wallets) sum to zero: a paid call is a `charge` of the caller, an `earning` of the provider and a `fee` of the marketplace; an x402 payment is `x402_payment` from the wallet that signed it and `x402_deposit` to the caller it paid for; a dispute refund is `refund` and `clawback`.',
    errors: [404],
    document: /* GraphQL */ `
      query WalletEntries($agentId: ID!, $first: Int, $offset: Int) {
        walletEntries(agentId: $agentId, first: $first, offset: $offset) {
          total: totalCount
          entries: nodes {
            entry_id: id
            amount
            amount_base_units: amountBaseUnits
            kind
            reference
            transfer_id: transferId
            execution_id: executionId
            payment_id: paymentId
            created_at: createdAt
          }
        }
      }
    `,
    variables: {
      agentId: from.path('agentId'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
];
