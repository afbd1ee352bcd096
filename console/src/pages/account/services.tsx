// The agent's services: registered (the signing secret shown once), edited, paused and resumed.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import type { PricingModel } from '../../gql/graphql';
import { Link, seg } from '../../router';
import { ErrorNote, listOf, Loaded, Money, Page, Paged, SecretOnce, Section, SelectField, Status, TextArea, TextField, usePages } from '../../ui';

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
      <TextField
        label="Endpoint"
        type="url"
        value={form.endpoint}
        onChange={(e) => set({ ...form, endpoint: e.target.value })}
        required
        hint="The https URL the marketplace calls, signed with the service's secret"
      />
      <TextField
        label="Capabilities"
        value={form.capabilities}
        onChange={(e) => set({ ...form, capabilities: e.target.value })}
        required
        hint="Comma-separated identifiers, such as summarize, translate"
      />
      <SelectField
        label="Pricing"
        value={form.pricingModel}
        options={PRICING}
        onChange={(e) => set({ ...form, pricingModel: e.target.value as PricingModel })}
      />
      <TextField
        label="Price a call (cents)"
        type="number"
        min={0}
        inputMode="numeric"
        value={form.costPerCall}
        onChange={(e) => set({ ...form, costPerCall: e.target.value })}
      />
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
                              form: {
                                name: s.name,
                                description: s.description,
                                endpoint: s.endpoint,
                                capabilities: s.capabilities.join(', '),
                                pricingModel: s.pricingModel,
                                costPerCall: String(s.costPerCall),
                              },
                            })
                          }
                        >
                          Edit
                        </button>
                        {s.status === 'paused' ? (
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Resume ${s.name}`}
                            onClick={async () => (await resume({ serviceKey: s.serviceKey }), reload())}
                          >
                            Resume
                          </button>
                        ) : (
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Pause ${s.name}`}
                            onClick={async () => (await pause({ serviceKey: s.serviceKey }), reload())}
                          >
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
