// Signing in, registering, and the signed-in agent's own pages: its profile, sub-keys, services,
// executions with their receipts, and its wallet.
import { useState, type FormEvent, type ReactElement } from 'react';
import { useMutation, useQuery, useSignedInAgent } from '../data';
import { graphql } from '../gql';
import type { AutonomyLevel, PricingModel } from '../gql/graphql';
import { Link, navigate, seg } from '../router';
import { kindOf, signIn, useSession, type KeyKind } from '../session';
import { useRefetchOnEvents } from '../live';
import { Breakdown, ConfirmButton, ErrorNote, Facts, Json, listOf, LiveBadge, Loaded, Money, Page, Paged, parseJson, SecretOnce, Section, SelectField, Status, Table, TextArea, TextField, Time, usePages } from '../ui';

export function SignInPage() {
  const [key, setKey] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!key.trim()) return;
    signIn(key);
    navigate(kindOf(key) === 'admin' ? '/admin' : '/me');
  };
  return (
    <Page title="Sign in" intro="With your agent's master key, or the administrator's key. It is kept in this tab only, and forgotten when the tab closes.">
      <form onSubmit={submit} className="form narrow">
        <TextField label="Key" type="password" autoComplete="off" spellCheck={false} value={key} onChange={(e) => setKey(e.target.value)} hint="key_master_… or key_admin_…" required />
        <button type="submit">Sign in</button>
      </form>
      <p>
        No agent yet? <Link to="/register">Register one</Link>.
      </p>
    </Page>
  );
}

const Register = graphql(`
  mutation ConsoleRegister($input: RegisterAgentInput!) {
    registerAgent(input: $input) {
      agentId
      name
      masterKey
    }
  }
`);

export function RegisterPage() {
  const [result, register] = useMutation(Register);
  const [form, setForm] = useState({ name: '', description: '', ownerEmail: '' });
  const [registered, setRegistered] = useState<{ name: string; masterKey: string } | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const answer = await register({ input: form });
    if (answer.data) setRegistered(answer.data.registerAgent);
  };
  if (registered) {
    return (
      <Page title="Registered">
        <p>
          <strong>{registered.name}</strong> is registered. Its master key opens everything it owns; the marketplace keeps only its hash.
        </p>
        <SecretOnce label="Master key" value={registered.masterKey} />
        <button
          type="button"
          onClick={() => {
            signIn(registered.masterKey);
            navigate('/me');
          }}
        >
          Sign in as {registered.name}
        </button>
      </Page>
    );
  }
  return (
    <Page title="Register an agent">
      <form onSubmit={submit} className="form narrow">
        <TextField label="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required hint="Unique in the marketplace" />
        <TextArea label="Description" value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} required rows={3} />
        <TextField label="Owner's email" type="email" value={form.ownerEmail} onChange={(e) => setForm({ ...form, ownerEmail: e.target.value })} required />
        {result.error && <ErrorNote error={result.error} />}
        <button type="submit" disabled={result.fetching}>
          Register
        </button>
      </form>
    </Page>
  );
}

/**
 * A page that needs a kind of key (an agent's master key, or the administrator's): the sign-in form until
 * there is one, and a word on which key it needs when the session holds the other kind.
 */
export function KeyOnly({ kind, children }: { kind: KeyKind; children: ReactElement }) {
  const session = useSession();
  if (!session) return <SignInPage />;
  if (session.kind !== kind)
    return kind === 'agent' ? (
      <Page title="An agent's page">
        <p>This page belongs to an agent: sign in with its master key.</p>
      </Page>
    ) : (
      <Page title="The administrator's page">
        <p>This page needs the administrator&apos;s key: sign out and sign in with it.</p>
      </Page>
    );
  return children;
}

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
  const [form, setForm] = useState<{ name: string; description: string; autonomyLevel: AutonomyLevel; authority: string }>({ name: '', description: '', autonomyLevel: 'EXECUTE_ONLY', authority: '' });
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
        <SelectField label="Autonomy" value={form.autonomyLevel} options={AUTONOMY} onChange={(e) => setForm({ ...form, autonomyLevel: e.target.value as AutonomyLevel })} />
        <TextField label="Authority" value={form.authority} onChange={(e) => setForm({ ...form, authority: e.target.value })} hint="Comma-separated capability prefixes, inside your own; empty for the same as yours" />
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
              { label: 'In force', cell: (a) => (a.effectiveStatusImposedBy ? <>{a.effectiveStatus} (by <code>{a.effectiveStatusImposedBy}</code>)</> : a.effectiveStatus) },
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

const Keys = graphql(`
  query ConsoleKeys($after: String) {
    myKeys(first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        subKeyId
        hint
        serviceKey
        serviceName
        status
        permissions
        expiresAt
        gracePeriodEnds
        createdAt
      }
    }
  }
`);

const Provision = graphql(`
  mutation ConsoleProvisionKey($serviceKey: String!) {
    provisionSubKey(serviceKey: $serviceKey) {
      subKeyId
      subKey
    }
  }
`);

const Rotate = graphql(`
  mutation ConsoleRotateKey($id: ID!) {
    rotateSubKey(id: $id) {
      subKeyId
      newSubKey
      gracePeriodEnds
    }
  }
`);

const Revoke = graphql(`
  mutation ConsoleRevokeKey($id: ID!) {
    revokeSubKey(id: $id) {
      subKeyId
      revoked
    }
  }
`);

export function KeysPage() {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: Keys, variables: { after: pages.after } });
  const [provisioned, provision] = useMutation(Provision);
  const [rotated, rotate] = useMutation(Rotate);
  const [revoked, revoke] = useMutation(Revoke);
  const [serviceKey, setServiceKey] = useState('');
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return (
    <Page title="Keys" intro="Sub-keys: a key for one provider's service, with its permissions and rates. Rotating keeps the old key valid for its grace period.">
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <Section title="Provision a key">
        <form
          className="form inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await provision({ serviceKey: serviceKey.trim() });
            if (answer.data) {
              setSecret({ label: 'New sub-key', value: answer.data.provisionSubKey.subKey });
              setServiceKey('');
              reload();
            }
          }}
        >
          <TextField label="Service key" value={serviceKey} onChange={(e) => setServiceKey(e.target.value)} required hint="svc_… of the service the key is for" />
          <button type="submit" disabled={provisioned.fetching}>
            Provision
          </button>
        </form>
        {provisioned.error && <ErrorNote error={provisioned.error} />}
      </Section>
      {(rotated.error || revoked.error) && <ErrorNote error={(rotated.error ?? revoked.error)!} />}
      <Loaded result={result}>
        {({ myKeys }) => (
          <>
            <Paged
              connection={myKeys}
              pages={pages}
              caption="Your sub-keys"
              rowKey={(k) => k.subKeyId}
              columns={[
                { label: 'Key', cell: (k) => <code>…{k.hint}</code> },
                { label: 'Service', cell: (k) => <Link to={`/services/${seg(k.serviceKey)}`}>{k.serviceName}</Link> },
                { label: 'Status', cell: (k) => <Status value={k.status} /> },
                { label: 'Permissions', cell: (k) => k.permissions.join(', ') },
                { label: 'Expires', cell: (k) => <Time at={k.gracePeriodEnds ?? k.expiresAt} /> },
                {
                  label: 'Actions',
                  cell: (k) =>
                    k.status === 'active' ? (
                      <span className="actions">
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Rotate the key ending ${k.hint}`}
                          onClick={async () => {
                            const answer = await rotate({ id: k.subKeyId });
                            if (answer.data) {
                              setSecret({ label: 'Rotated sub-key', value: answer.data.rotateSubKey.newSubKey });
                              reload();
                            }
                          }}
                        >
                          Rotate
                        </button>
                        <ConfirmButton
                          question={`Revoke the key ending ${k.hint}? Calls with it fail at once.`}
                          label={`Revoke the key ending ${k.hint}`}
                          action={async () => {
                            await revoke({ id: k.subKeyId });
                            reload();
                          }}
                        >
                          Revoke
                        </ConfirmButton>
                      </span>
                    ) : null,
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const Services = graphql(`
  query ConsoleMyServices($after: String) {
    myServices(first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        serviceId
        serviceKey
        name
        description
        endpoint
        status
        capabilities
        pricingModel
        costPerCall
        resumeAt
        stats {
          totalCalls
          successRate
        }
      }
    }
  }
`);

const RegisterService = graphql(`
  mutation ConsoleRegisterService($input: RegisterServiceInput!) {
    registerService(input: $input) {
      serviceKey
      name
      signingSecret
    }
  }
`);

const UpdateService = graphql(`
  mutation ConsoleUpdateService($serviceKey: String!, $input: UpdateServiceInput!) {
    updateService(serviceKey: $serviceKey, input: $input) {
      serviceKey
      name
      description
      endpoint
      capabilities
      costPerCall
      pricingModel
    }
  }
`);

const PauseService = graphql(`
  mutation ConsolePauseService($serviceKey: String!) {
    pauseService(serviceKey: $serviceKey) {
      serviceKey
      status
    }
  }
`);

const ResumeService = graphql(`
  mutation ConsoleResumeService($serviceKey: String!) {
    resumeService(serviceKey: $serviceKey) {
      serviceKey
      status
    }
  }
`);

const PRICING: [PricingModel, string][] = [
  ['free', 'Free'],
  ['per_call', 'Per call'],
  ['freemium', 'Freemium'],
  ['monthly', 'Monthly'],
];

interface ServiceForm {
  name: string;
  description: string;
  endpoint: string;
  capabilities: string;
  pricingModel: PricingModel;
  costPerCall: string;
}

const emptyService: ServiceForm = { name: '', description: '', endpoint: 'https://', capabilities: '', pricingModel: 'free', costPerCall: '0' };

function ServiceFields({ form, set }: { form: ServiceForm; set: (f: ServiceForm) => void }) {
  return (
    <>
      <TextField label="Name" value={form.name} onChange={(e) => set({ ...form, name: e.target.value })} required />
      <TextArea label="Description" rows={2} value={form.description} onChange={(e) => set({ ...form, description: e.target.value })} required />
      <TextField label="Endpoint" type="url" value={form.endpoint} onChange={(e) => set({ ...form, endpoint: e.target.value })} required hint="The https URL the marketplace calls, signed with the service's secret" />
      <TextField label="Capabilities" value={form.capabilities} onChange={(e) => set({ ...form, capabilities: e.target.value })} required hint="Comma-separated identifiers, such as summarize, translate" />
      <SelectField label="Pricing" value={form.pricingModel} options={PRICING} onChange={(e) => set({ ...form, pricingModel: e.target.value as PricingModel })} />
      <TextField label="Price a call (cents)" type="number" min={0} inputMode="numeric" value={form.costPerCall} onChange={(e) => set({ ...form, costPerCall: e.target.value })} />
    </>
  );
}

const serviceInput = (f: ServiceForm) => ({
  name: f.name.trim(),
  description: f.description.trim(),
  endpoint: f.endpoint.trim(),
  capabilities: listOf(f.capabilities),
  pricingModel: f.pricingModel,
  costPerCall: Number(f.costPerCall) || 0,
});

export function ServicesPage() {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: Services, variables: { after: pages.after } });
  const [registered, register] = useMutation(RegisterService);
  const [updated, update] = useMutation(UpdateService);
  const [paused, pause] = useMutation(PauseService);
  const [resumed, resume] = useMutation(ResumeService);
  const [form, setForm] = useState<ServiceForm>(emptyService);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<{ serviceKey: string; form: ServiceForm } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const failed = updated.error ?? paused.error ?? resumed.error;
  return (
    <Page
      title="Services"
      actions={
        !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Register a service
          </button>
        )
      }
    >
      {secret && <SecretOnce label="Signing secret" value={secret} onDone={() => setSecret(null)} />}
      {adding && (
        <Section title="Register a service">
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              const answer = await register({ input: serviceInput(form) });
              if (answer.data) {
                setSecret(answer.data.registerService.signingSecret);
                setForm(emptyService);
                setAdding(false);
                reload();
              }
            }}
          >
            <ServiceFields form={form} set={setForm} />
            {registered.error && <ErrorNote error={registered.error} />}
            <div className="actions">
              <button type="submit" disabled={registered.fetching}>
                Register
              </button>
              <button type="button" className="secondary" onClick={() => setAdding(false)}>
                Cancel
              </button>
            </div>
          </form>
        </Section>
      )}
      {editing && (
        <Section title={`Edit ${editing.serviceKey}`}>
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              const answer = await update({ serviceKey: editing.serviceKey, input: serviceInput(editing.form) });
              if (answer.data) {
                setEditing(null);
                reload();
              }
            }}
          >
            <ServiceFields form={editing.form} set={(f) => setEditing({ ...editing, form: f })} />
            <div className="actions">
              <button type="submit" disabled={updated.fetching}>
                Save
              </button>
              <button type="button" className="secondary" onClick={() => setEditing(null)}>
                Cancel
              </button>
            </div>
          </form>
        </Section>
      )}
      {failed && <ErrorNote error={failed} />}
      <Loaded result={result}>
        {({ myServices }) => (
          <>
            <Paged
              connection={myServices}
              pages={pages}
              caption="Your services"
              rowKey={(s) => s.serviceKey}
              columns={[
                { label: 'Service', cell: (s) => <Link to={`/services/${seg(s.serviceKey)}`}>{s.name}</Link> },
                { label: 'Key', cell: (s) => <code>{s.serviceKey}</code> },
                { label: 'Status', cell: (s) => <Status value={s.status} /> },
                { label: 'Capabilities', cell: (s) => s.capabilities.join(', ') },
                { label: 'Price', cell: (s) => <Money cents={s.costPerCall} />, numeric: true },
                { label: 'Calls', cell: (s) => s.stats.totalCalls.toLocaleString(), numeric: true },
                {
                  label: 'Actions',
                  cell: (s) =>
                    s.status === 'removed' ? null : (
                      <span className="actions">
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Edit ${s.name}`}
                          onClick={() =>
                            setEditing({
                              serviceKey: s.serviceKey,
                              form: { name: s.name, description: s.description, endpoint: s.endpoint, capabilities: s.capabilities.join(', '), pricingModel: s.pricingModel, costPerCall: String(s.costPerCall) },
                            })
                          }
                        >
                          Edit
                        </button>
                        {s.status === 'paused' ? (
                          <button type="button" className="secondary" aria-label={`Resume ${s.name}`} onClick={async () => (await resume({ serviceKey: s.serviceKey }), reload())}>
                            Resume
                          </button>
                        ) : (
                          <button type="button" className="secondary" aria-label={`Pause ${s.name}`} onClick={async () => (await pause({ serviceKey: s.serviceKey }), reload())}>
                            Pause
                          </button>
                        )}
                      </span>
                    ),
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const Executions = graphql(`
  query ConsoleExecutions($after: String) {
    myExecutions(first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        executionId
        capability
        status
        mode
        costCents
        latencyMs
        createdAt
        attempts {
          ordinal
        }
      }
    }
  }
`);

export function ExecutionsPage() {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: Executions, variables: { after: pages.after } });
  // New executions appear as they are recorded.
  const live = useRefetchOnEvents(['execution.'], () => refetch({ requestPolicy: 'network-only' }));
  return (
    <Page
      title="Executions"
      intro="Every capability your agent executed, newest first; open one for its receipt."
      actions={
        <>
          <LiveBadge status={live} />
          <Link to="/executions/new">Execute a capability</Link>
        </>
      }
    >
      <Loaded result={result}>
        {({ myExecutions }) => (
          <>
            <Paged
              connection={myExecutions}
              pages={pages}
              caption="Your executions"
              rowKey={(x) => x.executionId}
              columns={[
                { label: 'When', cell: (x) => <Link to={`/executions/${seg(x.executionId)}`}>{<Time at={x.createdAt} />}</Link> },
                { label: 'Capability', cell: (x) => x.capability },
                { label: 'Status', cell: (x) => <Status value={x.status} /> },
                { label: 'Attempts', cell: (x) => x.attempts.length, numeric: true },
                { label: 'Cost', cell: (x) => <Money cents={x.costCents} />, numeric: true },
                { label: 'Latency', cell: (x) => `${x.latencyMs} ms`, numeric: true },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

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
                  ['Capability', <Link key="c" to={`/capabilities/${seg(x.capability)}`}>{x.capability}</Link>],
                  ['Status', <Status key="s" value={x.status} />],
                  ['Routing', x.mode === 'auto' ? `automatic${fellBack ? `, fell back ${x.attempts.length - 1} time${x.attempts.length > 2 ? 's' : ''}` : ''}` : 'a chosen provider'],
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
          ...(['reputation', 'cost', 'reliability', 'latency', 'freshness'] as const).map((f) => ({ label: f[0].toUpperCase() + f.slice(1), cell: (m: (typeof ranked)[number]) => m.scoreBreakdown[f].toFixed(1), numeric: true })),
        ]}
      />
    </Section>
  );
}

const Execute = graphql(`
  mutation ConsoleExecute($input: ExecuteInput!) {
    execute(input: $input) {
      executionId
      status
    }
  }
`);

export function ExecutePage() {
  const [result, execute] = useMutation(Execute);
  const [capability, setCapability] = useState('');
  const [input, setInput] = useState('{\n  "text": ""\n}');
  const [inputError, setInputError] = useState<string | null>(null);
  return (
    <Page title="Execute a capability" intro="The marketplace ranks the capability's providers and calls the best, falling back to the next on failure.">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const parsed = parseJson('Input', input);
          setInputError(parsed.ok ? null : parsed.error);
          if (!parsed.ok) return;
          const answer = await execute({ input: { capability: capability.trim(), input: parsed.value } });
          if (answer.data) navigate(`/executions/${seg(answer.data.execute.executionId)}`);
        }}
      >
        <TextField label="Capability" value={capability} onChange={(e) => setCapability(e.target.value)} required hint="An identifier such as summarize" />
        <TextArea label="Input (JSON)" rows={6} value={input} onChange={(e) => setInput(e.target.value)} spellCheck={false} error={inputError} />
        {result.error && <ErrorNote error={result.error} />}
        <button type="submit" disabled={result.fetching}>
          {result.fetching ? 'Executing…' : 'Execute'}
        </button>
      </form>
    </Page>
  );
}

const WalletQuery = graphql(`
  query ConsoleWallet($agentId: ID!, $after: String) {
    wallet(agentId: $agentId) {
      walletAddress
      network
      asset
      balance
      held
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
          {credited.data.sandboxFaucet.credited ? `Credited ${credited.data.sandboxFaucet.amount}; the balance is ${credited.data.sandboxFaucet.balance}.` : 'The faucet is at its cap: nothing credited.'}
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
