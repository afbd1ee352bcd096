import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { ClientsProvider } from './clients-context';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ClientsProvider>
      <App />
    </ClientsProvider>
  </StrictMode>,
);
