// Opening a dispute about a service (a receipt links here with its service filled in).
import { useState } from 'react';
import { useMutation } from '../../data';
import { graphql } from '../../gql';
import { navigate, useLocation } from '../../router';
import { ErrorNote, Page, SelectField, TextArea, TextField } from '../../ui';

const OpenDispute = graphql(`
  mutation ConsoleOpenDispute($input: CreateDisputeInput!) {
    createDispute(input: $input) {
      disputeId
      status
    }
  }
`);

const DISPUTE_TYPES: [string, string][] = [
  ['quality', 'Quality: the answer was wrong or unusable'],
  ['billing', 'Billing: charged wrongly'],
  ['availability', 'Availability: the service did not answer'],
];

export function OpenDisputePage() {
  const { query } = useLocation();
  const [opened, open] = useMutation(OpenDispute);
  const [form, setForm] = useState({ serviceId: query.get('serviceId') ?? '', type: 'quality', description: '' });
  return (
    <Page title="Open a dispute" intro="About a service you called. The marketplace reviews it; its decision, and any refund, appear on your disputes.">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const answer = await open({ input: { serviceId: form.serviceId.trim(), type: form.type, description: form.description.trim() } });
          if (answer.data) navigate('/disputes');
        }}
      >
        <TextField
          label="Service id"
          value={form.serviceId}
          onChange={(e) => setForm({ ...form, serviceId: e.target.value })}
          required
          hint="The service's UUID (a receipt's “Open a dispute” fills it in)"
        />
        <SelectField label="Type" value={form.type} options={DISPUTE_TYPES} onChange={(e) => setForm({ ...form, type: e.target.value })} />
        <TextArea label="What happened" rows={4} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} required />
        {opened.error && <ErrorNote error={opened.error} />}
        <button type="submit" disabled={opened.fetching}>
          Open the dispute
        </button>
      </form>
    </Page>
  );
}
