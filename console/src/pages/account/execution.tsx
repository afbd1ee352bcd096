// An execution's receipt: its attempts in order, the attempted providers' scores as the ranking stands now, its result.
import { useEffect, useState } from 'react';
import { useQuery } from '../../data';
import { canonicalSha256, verifySignedReceipt, type ReceiptCheck } from '../../receipt';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { Breakdown, ErrorNote, Facts, Json, Loaded, Money, Page, Section, Status, Table, Time } from '../../ui';

const ExecutionDetail = graphql(`
  query ConsoleExecution($id: ID!) {
    node(id: $id) {
      ... on Execution {
        executionId
        capability
        status
        mode
        costCents
        latencyMs
        error
        result
        createdAt
        serviceId
        attempts {
          ordinal
          serviceKey
          outcome
          reason
          statusCode
          score
          priceCents
          latencyMs
        }
      }
    }
  }
`);

/** The global id (Query.node) of an object of `type` with the id its own field gives (Pothos' encoding). */
const globalId = (type: string, id: string) => btoa(`${type}:${id}`);

export function ExecutionPage({ id }: { id: string }) {
  const [result] = useQuery({ query: ExecutionDetail, variables: { id: globalId('Execution', id) } });
  return (
    <Page title="Execution receipt">
      <Loaded result={result}>
        {({ node }) => {
          if (!node || !('executionId' in node)) return <ErrorNote error="No such execution of yours." />;
          const x = node;
          const fellBack = x.attempts.length > 1;
          return (
            <>
              <Facts
                items={[
                  ['Execution', <code key="i">{x.executionId}</code>],
                  [
                    'Capability',
                    <Link key="c" to={`/capabilities/${seg(x.capability)}`}>
                      {x.capability}
                    </Link>,
                  ],
                  ['Status', <Status key="s" value={x.status} />],
                  [
                    'Routing',
                    x.mode === 'auto'
                      ? `automatic${fellBack ? `, fell back ${x.attempts.length - 1} time${x.attempts.length > 2 ? 's' : ''}` : ''}`
                      : 'a chosen provider',
                  ],
                  ['Cost', <Money key="m" cents={x.costCents} />],
                  ['Latency', `${x.latencyMs} ms`],
                  ['When', <Time key="t" at={x.createdAt} />],
                ]}
              />
              <Section title="Attempts">
                <Table
                  caption="Attempts, in order"
                  rows={x.attempts}
                  rowKey={(a) => String(a.ordinal)}
                  columns={[
                    { label: '#', cell: (a) => a.ordinal, numeric: true },
                    { label: 'Service', cell: (a) => <code>{a.serviceKey}</code> },
                    { label: 'Outcome', cell: (a) => <Status value={a.outcome} /> },
                    { label: 'Why', cell: (a) => a.reason ?? (a.statusCode ? `HTTP ${a.statusCode}` : '—') },
                    { label: 'Score', cell: (a) => (a.score === null ? '—' : a.score.toFixed(1)), numeric: true },
                    { label: 'Price', cell: (a) => <Money cents={a.priceCents} />, numeric: true },
                    { label: 'Latency', cell: (a) => `${a.latencyMs} ms`, numeric: true },
                  ]}
                />
              </Section>
              <AttemptedNow capability={x.capability} serviceKeys={x.attempts.map((a) => a.serviceKey)} />
              {x.serviceId && (
                <p>
                  Something wrong with this call? <Link to={`/disputes/new?serviceId=${seg(x.serviceId)}`}>Open a dispute</Link>
                </p>
              )}
              {x.error && <ErrorNote error={x.error} />}
              {x.result !== null && x.result !== undefined && (
                <Section title="Result">
                  <Json value={x.result} />
                </Section>
              )}
              <SignedReceipt executionId={x.executionId} result={x.result} />
            </>
          );
        }}
      </Loaded>
    </Page>
  );
}

const RankingNow = graphql(`
  query ConsoleRankingNow($capability: String!) {
    providers(capability: $capability, limit: 100) {
      matches {
        serviceKey
        name
        score
        scoreBreakdown {
          reputation
          cost
          reliability
          latency
          freshness
        }
      }
    }
  }
`);

/**
 * Why the attempted providers rank where they do: their score's five parts as the ranking computes them
 * now (an attempt records the score it had; the parts move with each provider's statistics).
 */
function AttemptedNow({ capability, serviceKeys }: { capability: string; serviceKeys: string[] }) {
  const [result] = useQuery({ query: RankingNow, variables: { capability } });
  const ranked = result.data?.providers.matches.filter((m) => serviceKeys.includes(m.serviceKey)) ?? [];
  if (!ranked.length) return null;
  return (
    <Section title="Score breakdown, as the ranking stands now">
      <Table
        caption="The attempted providers' scores now"
        rows={ranked}
        rowKey={(m) => m.serviceKey}
        columns={[
          { label: 'Service', cell: (m) => m.name },
          { label: 'Score now', cell: (m) => (m.score === null ? '—' : m.score.toFixed(1)), numeric: true },
          { label: 'Parts', cell: (m) => <Breakdown breakdown={m.scoreBreakdown} /> },
          ...(['reputation', 'cost', 'reliability', 'latency', 'freshness'] as const).map((f) => ({
            label: f[0].toUpperCase() + f.slice(1),
            cell: (m: (typeof ranked)[number]) => m.scoreBreakdown[f].toFixed(1),
            numeric: true,
          })),
        ]}
      />
    </Section>
  );
}

const ReceiptQuery = graphql(`
  query ConsoleExecutionReceipt($executionId: ID!) {
    executionReceipt(executionId: $executionId) {
      signedReceipt
      claims
    }
  }
`);

/**
 * The execution's signed receipt, checked here as a third party would check it: its signature against the
 * published key set, and the result shown above against the receipt's digest of it.
 */
function SignedReceipt({ executionId, result: shown }: { executionId: string; result: unknown }) {
  const [result] = useQuery({ query: ReceiptQuery, variables: { executionId } });
  const receipt = result.data?.executionReceipt;
  const [check, setCheck] = useState<ReceiptCheck | null>(null);
  const [resultMatches, setResultMatches] = useState<boolean | null>(null);
  useEffect(() => {
    if (!receipt) return;
    let live = true;
    const bound = (receipt.claims as { receipt?: { result_sha256?: string | null } }).receipt?.result_sha256 ?? null;
    void verifySignedReceipt(receipt.signedReceipt).then((c) => live && setCheck(c));
    if (bound !== null && shown !== null && shown !== undefined) void canonicalSha256(shown).then((d) => live && setResultMatches(d === bound));
    return () => {
      live = false;
    };
  }, [receipt, shown]);
  if (!receipt) return result.error ? <ErrorNote error={result.error} /> : null;
  return (
    <Section title="Signed receipt">
      <p role="status">
        {check === null
          ? 'Checking its signature…'
          : check.verified
            ? `Signature verified with the marketplace's key ${check.keyId}.`
            : `Signature not verified: ${check.why}.`}
        {resultMatches === null ? '' : resultMatches ? ' The result shown matches its digest.' : ' The result shown does not match its digest.'}
      </p>
      <details>
        <summary>The token (a JWS any JOSE library verifies against /.well-known/jwks.json)</summary>
        <pre className="token">
          <code>{receipt.signedReceipt}</code>
        </pre>
      </details>
    </Section>
  );
}
