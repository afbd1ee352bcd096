// The signed-in agent's own page: its profile and usage, its sub-agents at any depth, and a new sub-agent.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import type { AutonomyLevel } from '../../gql/graphql';
import { Link, seg } from '../../router';
import { ErrorNote, Facts, listOf, Loaded, Page, Paged, SecretOnce, Section, SelectField, Status, TextField, Time, usePages } from '../../ui';

const Me = graphql(`
  query ConsoleMe {
    me {
      agentId
      agentKey
      name
      description
      ownerEmail
      reputation
      tier
      status
      autonomyLevel
      authorityScope
      parentId
      createdAt
    }
    myUsage {
      totalRequests
      totalExecutions
      days
    }
  }
`);

const SubAgents = graphql(`
  query ConsoleSubAgents($after: String) {
    mySubAgents(first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        agentId
        name
        parentId
        autonomyLevel
        authorityScope
        status
        effectiveStatus
        effectiveStatusImposedBy
        reputation
        createdAt
      }
    }
  }
`);

const CreateSubAgent = graphql(`
  mutation ConsoleCreateSubAgent($parentId: ID!, $input: CreateSubAgentInput!) {
    createSubAgent(parentId: $parentId, input: $input) {
      agentId
      name
      masterKey
    }
  }
`);

// In order, least first; a sub-agent's may not exceed its parent's (403 otherwise).
const AUTONOMY: [AutonomyLevel, string][] = [
  ['EXECUTE_ONLY', 'Execute only'],
  ['DELEGATE', 'Delegate'],
  ['CREATE', 'Create (may have sub-agents)'],
  ['GOVERN', 'Govern (as a registered agent; may have sub-agents)'],
];

function NewSubAgent({ me, onCreated }: { me: string; onCreated: () => void }) {
  const [created, create] = useMutation(CreateSubAgent);
  const [form, setForm] = useState<{ name: string; description: string; autonomyLevel: AutonomyLevel; authority: string }>({
    name: '',
    description: '',
    autonomyLevel: 'EXECUTE_ONLY',
    authority: '',
  });
  const [key, setKey] = useState<{ name: string; value: string } | null>(null);
  return (
    <>
      {key && <SecretOnce label={`Master key of ${key.name}`} value={key.value} onDone={() => setKey(null)} />}
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const answer = await create({
            parentId: me,
            input: { name: form.name.trim(), description: form.description.trim(), autonomyLevel: form.autonomyLevel, authorityScope: listOf(form.authority) },
          });
          if (answer.data) {
            setKey({ name: answer.data.createSubAgent.name, value: answer.data.createSubAgent.masterKey });
            setForm({ ...form, name: '', description: '' });
            onCreated();
          }
        }}
      >
        <TextField label="Sub-agent's name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        <TextField label="What it does" value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} required />
        <SelectField
          label="Autonomy"
          value={form.autonomyLevel}
          options={AUTONOMY}
          onChange={(e) => setForm({ ...form, autonomyLevel: e.target.value as AutonomyLevel })}
        />
        <TextField
          label="Authority"
          value={form.authority}
          onChange={(e) => setForm({ ...form, authority: e.target.value })}
          hint="Comma-separated capability prefixes, inside your own; empty for the same as yours"
        />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Create the sub-agent
        </button>
      </form>
    </>
  );
}

function SubAgentsSection({ me }: { me: string }) {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: SubAgents, variables: { after: pages.after } });
  const [adding, setAdding] = useState(false);
  return (
    <Section
      title="Sub-agents"
      actions={
        <button type="button" className="secondary" aria-expanded={adding} onClick={() => setAdding(!adding)}>
          {adding ? 'Close the form' : 'Create a sub-agent'}
        </button>
      }
    >
      {adding && <NewSubAgent me={me} onCreated={() => refetch({ requestPolicy: 'network-only' })} />}
      <Loaded result={result}>
        {({ mySubAgents }) => (
          <Paged
            connection={mySubAgents}
            pages={pages}
            caption="Your sub-agents, at any depth"
            rowKey={(a) => a.agentId}
            columns={[
              { label: 'Name', cell: (a) => <Link to={`/agents/${seg(a.agentId)}`}>{a.name}</Link> },
              { label: 'Under', cell: (a) => (a.parentId === me ? 'you' : <code>{a.parentId}</code>) },
              { label: 'Autonomy', cell: (a) => a.autonomyLevel },
              { label: 'Authority', cell: (a) => a.authorityScope.join(', ') || 'everything' },
              { label: 'Status', cell: (a) => <Status value={a.status} /> },
              {
                label: 'In force',
                cell: (a) =>
                  a.effectiveStatusImposedBy ? (
                    <>
                      {a.effectiveStatus} (by <code>{a.effectiveStatusImposedBy}</code>)
                    </>
                  ) : (
                    a.effectiveStatus
                  ),
              },
              { label: 'Reputation', cell: (a) => a.reputation, numeric: true },
              { label: 'Created', cell: (a) => <Time at={a.createdAt} /> },
            ]}
          />
        )}
      </Loaded>
    </Section>
  );
}

export function MePage() {
  const [result] = useQuery({ query: Me });
  return (
    <Page title={result.data?.me.name ?? 'Your agent'}>
      <Loaded result={result}>
        {({ me, myUsage }) => (
          <>
            <p className="intro">{me.description}</p>
            <Facts
              items={[
                ['Agent id', <code key="i">{me.agentId}</code>],
                ['Agent key', <code key="k">{me.agentKey}</code>],
                ['Status', <Status key="s" value={me.status} />],
                ['Reputation', `${me.reputation} of 100 (${me.tier})`],
                ['Autonomy', me.autonomyLevel],
                ['Authority', me.authorityScope.length ? me.authorityScope.join(', ') : 'everything'],
                ['Parent', me.parentId ? <code key="p">{me.parentId}</code> : 'none (a root agent)'],
                ['Owner', me.ownerEmail],
                ['Registered', <Time key="t" at={me.createdAt} />],
                [`Requests, ${myUsage.days} days`, myUsage.totalRequests.toLocaleString()],
                [`Executions, ${myUsage.days} days`, myUsage.totalExecutions.toLocaleString()],
              ]}
            />
            <p>
              <Link to={`/agents/${seg(me.agentId)}`}>Your public record</Link>
            </p>
            <SubAgentsSection me={me.agentId} />
          </>
        )}
      </Loaded>
    </Page>
  );
}
