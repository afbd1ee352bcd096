// Spend mandates: what the agent's sub-agents may spend from its wallet, each mandate's use today and this month
// against its caps with the alerts it raised, a new mandate, and revoking one; and the mandate the agent holds.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { ConfirmButton, ErrorNote, listOf, Loaded, Money, Page, Section, SelectField, Table, TextField, Time } from '../../ui';

const Mandates = graphql(`
  query ConsoleMandates {
    granted: mandates(role: "granted", first: 50) {
      totalCount
      nodes {
        ...ConsoleMandate
      }
    }
    held: mandates(role: "held", first: 5) {
      nodes {
        ...ConsoleMandate
      }
    }
    mySubAgents(first: 100) {
      nodes {
        agentId
        name
      }
    }
  }
  fragment ConsoleMandate on Mandate {
    mandateId
    grantorId
    agentId
    perCallCents
    dailyCents
    monthlyCents
    capabilities
    expiresAt
    revokedAt
    inForce
    today {
      ...ConsoleMandateUse
    }
    thisMonth {
      ...ConsoleMandateUse
    }
  }
  fragment ConsoleMandateUse on MandatePeriodUse {
    startsOn
    capCents
    spentCents
    heldCents
    calls
    remainingCents
    alerted
  }
`);

const Grant = graphql(`
  mutation ConsoleGrantMandate($input: GrantMandateInput!) {
    grantMandate(input: $input) {
      mandateId
    }
  }
`);

const Revoke = graphql(`
  mutation ConsoleRevokeMandate($id: ID!) {
    revokeMandate(id: $id) {
      mandateId
      inForce
    }
  }
`);

interface Use {
  startsOn: string;
  capCents?: number | null;
  spentCents: number;
  heldCents: number;
  calls: number;
  remainingCents?: number | null;
  alerted: number[];
}

/** A period's use against its cap: spent (and held) of the cap, the alerts it raised. */
function UseCell({ use }: { use: Use }) {
  if (use.capCents === null || use.capCents === undefined) {
    return (
      <>
        <Money cents={use.spentCents} /> spent, no cap
      </>
    );
  }
  const percent = Math.min(100, Math.round((use.spentCents * 100) / use.capCents));
  return (
    <>
      <Money cents={use.spentCents} /> of <Money cents={use.capCents} /> ({percent} %)
      {use.heldCents > 0 && (
        <>
          , <Money cents={use.heldCents} /> held
        </>
      )}
      <br />
      <meter min={0} max={use.capCents} value={use.spentCents} low={use.capCents * 0.5} high={use.capCents * 0.8} optimum={0} aria-label="Spent of the cap" />
      {use.alerted.length > 0 && <span className="note"> alerted at {use.alerted.map((p) => `${p} %`).join(', ')}</span>}
    </>
  );
}

const cents = (text: string) => (text.trim() === '' ? undefined : Math.round(Number(text) * 100));

function NewMandate({ subAgents, onGranted }: { subAgents: { agentId: string; name: string }[]; onGranted: () => void }) {
  const [granted, grant] = useMutation(Grant);
  const [form, setForm] = useState({ agentId: subAgents[0]?.agentId ?? '', perCall: '', daily: '', monthly: '', capabilities: '', days: '30' });
  if (!subAgents.length) return <p>A mandate is granted to a sub-agent: create one on your agent's page first.</p>;
  return (
    <form
      className="form"
      onSubmit={async (e) => {
        e.preventDefault();
        const expiresAt = new Date(Date.now() + Number(form.days) * 24 * 3600_000).toISOString();
        const answer = await grant({
          input: {
            agentId: form.agentId,
            perCallCents: cents(form.perCall),
            dailyCents: cents(form.daily),
            monthlyCents: cents(form.monthly),
            capabilities: listOf(form.capabilities),
            expiresAt,
          },
        });
        if (answer.data) onGranted();
      }}
    >
      <SelectField
        label="Sub-agent"
        value={form.agentId}
        options={subAgents.map((a) => [a.agentId, a.name])}
        onChange={(e) => setForm({ ...form, agentId: e.target.value })}
      />
      <TextField
        label="Per call (USD)"
        inputMode="decimal"
        value={form.perCall}
        onChange={(e) => setForm({ ...form, perCall: e.target.value })}
        hint="Empty: no cap"
      />
      <TextField label="Per day (USD)" inputMode="decimal" value={form.daily} onChange={(e) => setForm({ ...form, daily: e.target.value })} hint="A UTC day" />
      <TextField
        label="Per month (USD)"
        inputMode="decimal"
        value={form.monthly}
        onChange={(e) => setForm({ ...form, monthly: e.target.value })}
        hint="A UTC month"
      />
      <TextField
        label="Capabilities"
        value={form.capabilities}
        onChange={(e) => setForm({ ...form, capabilities: e.target.value })}
        hint="Comma-separated prefixes it pays for; empty for every capability"
      />
      <TextField label="Days until it ends" inputMode="numeric" value={form.days} onChange={(e) => setForm({ ...form, days: e.target.value })} required />
      {granted.error && <ErrorNote error={granted.error} />}
      <button type="submit" disabled={granted.fetching}>
        Grant the mandate
      </button>
    </form>
  );
}

export function MandatesPage() {
  const [result, refetch] = useQuery({ query: Mandates });
  const [revoked, revoke] = useMutation(Revoke);
  const [adding, setAdding] = useState(false);
  const again = () => refetch({ requestPolicy: 'network-only' });
  return (
    <Page
      title="Spend mandates"
      intro="What your sub-agents may spend from your wallet: each call is held against the caps before any provider is called, and counted by the statement that charges it."
    >
      <Loaded result={result}>
        {({ granted, held, mySubAgents }) => {
          const names = new Map(mySubAgents.nodes.map((a) => [a.agentId, a.name]));
          return (
            <>
              {held.nodes
                .filter((m) => m.inForce)
                .map((m) => (
                  <Section key={m.mandateId} title="Your own mandate">
                    <p>
                      <code>{m.grantorId}</code> pays for your calls{m.capabilities.length ? ` of ${m.capabilities.join(', ')}` : ''} until{' '}
                      <Time at={m.expiresAt} />
                      {m.perCallCents !== null && m.perCallCents !== undefined && (
                        <>
                          , at most <Money cents={m.perCallCents} /> a call
                        </>
                      )}
                      . Today: <UseCell use={m.today} />
                    </p>
                  </Section>
                ))}
              <Section
                title="Granted"
                actions={
                  <button type="button" className="secondary" aria-expanded={adding} onClick={() => setAdding(!adding)}>
                    {adding ? 'Close the form' : 'Grant a mandate'}
                  </button>
                }
              >
                {adding && (
                  <NewMandate
                    subAgents={mySubAgents.nodes}
                    onGranted={() => {
                      setAdding(false);
                      again();
                    }}
                  />
                )}
                {revoked.error && <ErrorNote error={revoked.error} />}
                <Table
                  caption={`Mandates you granted (${granted.totalCount})`}
                  rows={granted.nodes}
                  rowKey={(m) => m.mandateId}
                  columns={[
                    { label: 'Sub-agent', cell: (m) => names.get(m.agentId) ?? <code>{m.agentId}</code> },
                    { label: 'Per call', cell: (m) => (m.perCallCents === null || m.perCallCents === undefined ? 'no cap' : <Money cents={m.perCallCents} />) },
                    { label: 'Today', cell: (m) => <UseCell use={m.today} /> },
                    { label: 'This month', cell: (m) => <UseCell use={m.thisMonth} /> },
                    { label: 'Capabilities', cell: (m) => m.capabilities.join(', ') || 'every capability' },
                    {
                      label: 'Ends',
                      cell: (m) =>
                        m.revokedAt ? (
                          <>
                            revoked <Time at={m.revokedAt} />
                          </>
                        ) : (
                          <Time at={m.expiresAt} />
                        ),
                    },
                    {
                      label: '',
                      cell: (m) =>
                        m.inForce ? (
                          <ConfirmButton
                            question="Revoke this mandate? No new call is paid under it."
                            label={`Revoke the mandate of ${names.get(m.agentId) ?? m.agentId}`}
                            action={async () => (await revoke({ id: m.mandateId })).data && again()}
                          >
                            Revoke
                          </ConfirmButton>
                        ) : (
                          'ended'
                        ),
                    },
                  ]}
                />
              </Section>
            </>
          );
        }}
      </Loaded>
    </Page>
  );
}
