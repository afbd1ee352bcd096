// Trying a capability from its page: its input as a form when the capability declares a schema (JSON
// otherwise), the routing policy as a form, then the receipt: who answered, what each attempt came to, who
// was passed over and why, what it cost.
import { useState } from 'react';
import { useMutation } from '../../data';
import { graphql } from '../../gql';
import type { RoutingSort } from '../../gql/graphql';
import { Link, seg } from '../../router';
import { useSession } from '../../session';
import { ErrorNote, listOf, Money, parseJson, Section, SelectField, Status, Table, TextArea, TextField } from '../../ui';

const TryExecute = graphql(`
  mutation ConsoleTryIt($input: ExecuteInput!) {
    execute(input: $input) {
      executionId
      status
      error
      result
      provider {
        serviceKey
        name
      }
      transaction {
        costCents
        latencyMs
      }
      attempts {
        ordinal
        serviceKey
        outcome
        category
        reason
        latencyMs
      }
      routing {
        skipped {
          serviceKey
          reason
          detail
        }
      }
    }
  }
`);

interface SchemaProperty {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
}

/** The top-level fields of an input schema a form can ask for (strings, numbers, booleans, enums); null when it has others. */
function simpleFields(schema: unknown): [name: string, SchemaProperty, required: boolean][] | null {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as { type?: string; properties?: Record<string, SchemaProperty>; required?: string[] };
  if (s.type !== 'object' || !s.properties) return null;
  const fields = Object.entries(s.properties).map(([name, p]) => [name, p, (s.required ?? []).includes(name)] as [string, SchemaProperty, boolean]);
  const simple = fields.every(([, p]) => p.enum || ['string', 'number', 'integer', 'boolean'].includes(String(p.type)));
  return simple && fields.length ? fields : null;
}

const SORTS: [string, string][] = [
  ['', 'As the ranking has it (balanced)'],
  ['cost', 'Cheapest first'],
  ['latency', 'Fastest first'],
  ['reputation', 'Best reputation first'],
  ['reliability', 'Most reliable first'],
];

const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));

export function TryIt({ capability, inputSchema }: { capability: string; inputSchema: unknown }) {
  const session = useSession();
  const [result, execute] = useMutation(TryExecute);
  const fields = simpleFields(inputSchema);
  const [values, setValues] = useState<Record<string, string>>({});
  const [json, setJson] = useState('{\n  "text": "hello"\n}');
  const [inputError, setInputError] = useState<string | null>(null);
  const [policy, setPolicy] = useState({ maxCost: '', deadline: '', only: '', ignore: '', sort: '', minSuccess: '', maxP95: '', fallbacks: true });
  const [policyError, setPolicyError] = useState<string | null>(null);
  if (!session || session.kind === 'admin')
    return (
      <Section title="Try it">
        <p className="muted">
          <Link to="/sign-in">Sign in</Link> with an agent key to call {capability} from here.
        </p>
      </Section>
    );

  const inputOf = (): { ok: true; value: unknown } | { ok: false; error: string } => {
    if (!fields) return parseJson('Input', json);
    const out: Record<string, unknown> = {};
    for (const [name, p, required] of fields) {
      const text = values[name] ?? '';
      if (text === '') {
        if (required) return { ok: false, error: `${name} is required` };
        continue;
      }
      if (p.type === 'number' || p.type === 'integer') out[name] = Number(text);
      else if (p.type === 'boolean') out[name] = text === 'true';
      else out[name] = text;
    }
    return { ok: true, value: out };
  };
  const routingOf = () => {
    const r = {
      maxCostCents: numberOrNull(policy.maxCost),
      deadlineMs: numberOrNull(policy.deadline),
      only: policy.only.trim() ? listOf(policy.only) : null,
      ignore: policy.ignore.trim() ? listOf(policy.ignore) : null,
      sort: (policy.sort || null) as RoutingSort | null,
      minSuccessRate: policy.minSuccess.trim() === '' ? null : Number(policy.minSuccess) / 100,
      maxLatencyP95Ms: numberOrNull(policy.maxP95),
      allowFallbacks: policy.fallbacks,
    };
    const bad = Object.entries(r).find(([, v]) => typeof v === 'number' && Number.isNaN(v));
    return bad
      ? { error: `${bad[0]} must be a number` }
      : { routing: Object.fromEntries(Object.entries(r).filter(([k, v]) => v !== null && !(k === 'allowFallbacks' && v === true))) };
  };
  const receipt = result.data?.execute;
  return (
    <Section title="Try it">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const input = inputOf();
          setInputError(input.ok ? null : input.error);
          const routing = routingOf();
          setPolicyError('error' in routing ? (routing.error ?? null) : null);
          if (!input.ok || 'error' in routing) return;
          await execute({ input: { capability, input: input.value, routing: routing.routing } });
        }}
      >
        <fieldset>
          <legend>Input</legend>
          {fields ? (
            fields.map(([name, p, required]) =>
              p.enum || p.type === 'boolean' ? (
                <SelectField
                  key={name}
                  label={`${name}${required ? '' : ' (optional)'}`}
                  value={values[name] ?? ''}
                  options={[['', '—'], ...((p.enum ?? ['true', 'false']).map((v) => [String(v), String(v)]) as [string, string][])]}
                  onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                />
              ) : (
                <TextField
                  key={name}
                  label={`${name}${required ? '' : ' (optional)'}`}
                  hint={p.description}
                  inputMode={p.type === 'string' ? undefined : 'decimal'}
                  value={values[name] ?? ''}
                  onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                />
              ),
            )
          ) : (
            <TextArea label="Input (JSON)" rows={5} value={json} onChange={(e) => setJson(e.target.value)} spellCheck={false} error={inputError} />
          )}
          {fields && inputError && <ErrorNote error={inputError} />}
        </fieldset>
        <fieldset>
          <legend>Routing policy</legend>
          <TextField
            label="At most (cents)"
            inputMode="numeric"
            value={policy.maxCost}
            onChange={(e) => setPolicy({ ...policy, maxCost: e.target.value })}
            hint="Dearer providers are passed over"
          />
          <TextField
            label="Deadline (ms)"
            inputMode="numeric"
            value={policy.deadline}
            onChange={(e) => setPolicy({ ...policy, deadline: e.target.value })}
            hint="For the whole call, fallbacks included"
          />
          <TextField
            label="Only these providers"
            value={policy.only}
            onChange={(e) => setPolicy({ ...policy, only: e.target.value })}
            hint="Service keys, separated by commas"
          />
          <TextField
            label="Never these providers"
            value={policy.ignore}
            onChange={(e) => setPolicy({ ...policy, ignore: e.target.value })}
            hint="Service keys, separated by commas"
          />
          <SelectField label="Rank by" value={policy.sort} options={SORTS} onChange={(e) => setPolicy({ ...policy, sort: e.target.value })} />
          <TextField
            label="Least success rate (%)"
            inputMode="decimal"
            value={policy.minSuccess}
            onChange={(e) => setPolicy({ ...policy, minSuccess: e.target.value })}
          />
          <TextField
            label="Most p95 latency (ms)"
            inputMode="numeric"
            value={policy.maxP95}
            onChange={(e) => setPolicy({ ...policy, maxP95: e.target.value })}
          />
          <div className="field checkbox">
            <label>
              <input type="checkbox" checked={policy.fallbacks} onChange={(e) => setPolicy({ ...policy, fallbacks: e.target.checked })} /> Fall back to the next
              provider on failure
            </label>
          </div>
          {policyError && <ErrorNote error={policyError} />}
        </fieldset>
        {result.error && <ErrorNote error={result.error} />}
        <button type="submit" disabled={result.fetching}>
          {result.fetching ? 'Calling…' : `Call ${capability}`}
        </button>
      </form>
      {receipt && (
        <div className="receipt" aria-live="polite">
          <p>
            <Status value={receipt.status} />{' '}
            {receipt.provider ? (
              <>
                answered by <code>{receipt.provider.serviceKey}</code>
              </>
            ) : (
              'nobody answered'
            )}{' '}
            in {receipt.transaction.latencyMs} ms, <Money cents={receipt.transaction.costCents} />.{' '}
            <Link to={`/executions/${seg(receipt.executionId)}`}>The full receipt</Link>
          </p>
          {receipt.error && <p className="field-error">{receipt.error}</p>}
          <Table
            caption="Attempts"
            rows={receipt.attempts}
            rowKey={(a) => String(a.ordinal)}
            columns={[
              { label: '#', cell: (a) => a.ordinal, numeric: true },
              { label: 'Provider', cell: (a) => <code>{a.serviceKey}</code> },
              { label: 'Outcome', cell: (a) => <Status value={a.outcome} /> },
              { label: 'Why', cell: (a) => a.category ?? '—' },
              { label: 'Time', cell: (a) => `${a.latencyMs} ms`, numeric: true },
            ]}
          />
          {receipt.routing?.skipped.length ? (
            <Table
              caption="Passed over"
              rows={receipt.routing.skipped}
              rowKey={(s) => s.serviceKey}
              columns={[
                { label: 'Provider', cell: (s) => <code>{s.serviceKey}</code> },
                { label: 'Why', cell: (s) => s.reason },
                { label: 'Detail', cell: (s) => s.detail },
              ]}
            />
          ) : null}
        </div>
      )}
    </Section>
  );
}
