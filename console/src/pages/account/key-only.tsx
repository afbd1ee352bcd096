// What a page that needs a kind of key shows without it: the guard app.tsx puts around the agent's and the
// administrator's pages.
import type { ReactElement } from 'react';
import { useSession, type KeyKind } from '../../session';
import { SignInPage } from './sign-in';
import { Page } from '../../ui';

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
