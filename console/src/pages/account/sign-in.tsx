// Signing in with an agent's master key or the administrator's key, which the session keeps for this tab only.
import { useState, type FormEvent } from 'react';
import { Link, navigate } from '../../router';
import { kindOf, signIn } from '../../session';
import { Page, TextField } from '../../ui';

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
        <TextField
          label="Key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          onChange={(e) => setKey(e.target.value)}
          hint="key_master_… or key_admin_…"
          required
        />
        <button type="submit">Sign in</button>
      </form>
      <p>
        No agent yet? <Link to="/register">Register one</Link>.
      </p>
    </Page>
  );
}
