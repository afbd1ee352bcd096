// Registering an agent: its master key shown once, then a sign-in with it.
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../data';
import { graphql } from '../../gql';
import { navigate } from '../../router';
import { signIn } from '../../session';
import { ErrorNote, Page, SecretOnce, TextArea, TextField } from '../../ui';

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
