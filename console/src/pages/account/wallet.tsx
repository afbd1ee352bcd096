// The agent's wallet: its balance, held, pending and available, its ledger, and the sandbox faucet.
import { useMutation, useQuery, useSignedInAgent } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { ErrorNote, Facts, Loaded, Page, Paged, Section, Time, usePages } from '../../ui';

const WalletQuery = graphql(`
  query ConsoleWallet($agentId: ID!, $after: String) {
    wallet(agentId: $agentId) {
      walletAddress
      network
      asset
      balance
      held
      pending
      available
      keyCustody
      createdAt
    }
    walletEntries(agentId: $agentId, first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        id
        kind
        amount
        reference
        executionId
        createdAt
      }
    }
  }
`);

const Faucet = graphql(`
  mutation ConsoleFaucet {
    sandboxFaucet {
      credited
      amount
      balance
    }
  }
`);

export function WalletPage() {
  const agentId = useSignedInAgent()?.agentId;
  const pages = usePages();
  const [result, refetch] = useQuery({ query: WalletQuery, variables: { agentId: agentId ?? '', after: pages.after }, pause: !agentId });
  const [credited, faucet] = useMutation(Faucet);
  const noWallet = result.error?.graphQLErrors.some((e) => e.extensions?.code === 'NOT_FOUND');
  return (
    <Page
      title="Wallet"
      actions={
        <button
          type="button"
          disabled={credited.fetching}
          onClick={async () => {
            const answer = await faucet({});
            if (answer.data) refetch({ requestPolicy: 'network-only' });
          }}
        >
          Sandbox faucet
        </button>
      }
    >
      {credited.error && <ErrorNote error={credited.error} />}
      {credited.data && (
        <p role="status" className="note">
          {credited.data.sandboxFaucet.credited
            ? `Credited ${credited.data.sandboxFaucet.amount}; the balance is ${credited.data.sandboxFaucet.balance}.`
            : 'The faucet is at its cap: nothing credited.'}
        </p>
      )}
      {noWallet ? (
        <p>No wallet yet: the faucet opens one (in sandbox mode), as does a first paid call.</p>
      ) : (
        <Loaded result={result}>
          {({ wallet, walletEntries }) => (
            <>
              <Facts
                items={[
                  ['Balance', `${wallet.balance} ${wallet.asset}`],
                  ['Held for calls in flight', `${wallet.held} ${wallet.asset}`],
                  ['Pending (earned, inside its dispute window)', `${wallet.pending} ${wallet.asset}`],
                  ['Available', `${wallet.available} ${wallet.asset}`],
                  ['Address', <code key="a">{wallet.walletAddress}</code>],
                  ['Network', wallet.network],
                  ['Key', wallet.keyCustody],
                ]}
              />
              <Section title="Ledger">
                <Paged
                  connection={walletEntries}
                  pages={pages}
                  caption="Ledger entries, newest first"
                  rowKey={(e) => e.id}
                  columns={[
                    { label: 'When', cell: (e) => <Time at={e.createdAt} /> },
                    { label: 'Kind', cell: (e) => e.kind },
                    { label: 'Amount', cell: (e) => `${e.amount} ${wallet.asset}`, numeric: true },
                    { label: 'For', cell: (e) => (e.executionId ? <Link to={`/executions/${seg(e.executionId)}`}>an execution</Link> : (e.reference ?? '—')) },
                  ]}
                />
              </Section>
            </>
          )}
        </Loaded>
      )}
    </Page>
  );
}
