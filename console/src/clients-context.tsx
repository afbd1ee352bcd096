// The session's GraphQL clients for every component: made again when the key changes (signing in or out),
// and the old socket closed.
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { Provider } from 'urql';
import { createClients, type Clients } from './client';
import { useSession } from './session';

const ClientsContext = createContext<Clients | null>(null);

export function ClientsProvider({ children }: { children: ReactNode }) {
  const session = useSession();
  const clients = useMemo(() => createClients(session), [session]);
  useEffect(() => () => void clients.ws.dispose(), [clients]);
  return (
    <ClientsContext.Provider value={clients}>
      <Provider value={clients.urql}>{children}</Provider>
    </ClientsContext.Provider>
  );
}

export function useClients(): Clients {
  const clients = useContext(ClientsContext);
  if (!clients) throw new Error('useClients outside ClientsProvider');
  return clients;
}
