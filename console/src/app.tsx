// The console's frame: a skip link, the header with the navigation (a menu button on narrow screens), and
// the page the address names.
import { useState, type ReactElement, type ReactNode } from 'react';
import { ExecutePage } from './pages/account/execute';
import { ExecutionPage } from './pages/account/execution';
import { ExecutionsPage } from './pages/account/executions';
import { KeyOnly } from './pages/account/key-only';
import { KeysPage } from './pages/account/keys';
import { MePage } from './pages/account/me';
import { RegisterPage } from './pages/account/register';
import { ServicesPage } from './pages/account/services';
import { SignInPage } from './pages/account/sign-in';
import { WalletPage } from './pages/account/wallet';
import { MandatesPage } from './pages/account/mandates';
import { AdminAgentsPage } from './pages/admin/agents';
import { AdminDisputesPage } from './pages/admin/disputes';
import { AdminOutboxPage } from './pages/admin/outbox';
import { AdminPage } from './pages/admin/overview';
import { LivePage } from './pages/live';
import { MemoryPage } from './pages/work/memory';
import { MemoryStorePage } from './pages/work/memory-store';
import { SwarmPage } from './pages/work/swarm';
import { SwarmsPage } from './pages/work/swarms';
import { TaskPage } from './pages/work/task';
import { TasksPage } from './pages/work/tasks';
import { UtoPage } from './pages/work/uto';
import { UtoTicketPage } from './pages/work/uto-ticket';
import { DisputesPage } from './pages/support/disputes';
import { OpenDisputePage } from './pages/support/open-dispute';
import { TicketPage } from './pages/support/ticket';
import { TicketsPage } from './pages/support/tickets';
import { WebhookPage } from './pages/support/webhook';
import { WebhooksPage } from './pages/support/webhooks';
import { AgentPage } from './pages/market/agent';
import { CapabilitiesPage } from './pages/market/capabilities';
import { CapabilityPage } from './pages/market/capability';
import { HealthPage } from './pages/market/health';
import { MarketHomePage } from './pages/market/home';
import { ServicePage } from './pages/market/service';
import { SkillPage } from './pages/market/skill';
import { SkillsPage } from './pages/market/skills';
import { WebmcpPage } from './pages/market/webmcp';
import { Link, match, navigate, useLocation, type Route } from './router';
import { signOut, useSession } from './session';
import { Page } from './ui';

const agent = (page: ReactNode) => <KeyOnly kind="agent">{page as ReactElement}</KeyOnly>;
const admin = (page: ReactNode) => <KeyOnly kind="admin">{page as ReactElement}</KeyOnly>;

const ROUTES: Route[] = [
  { pattern: '/', render: () => <MarketHomePage /> },
  { pattern: '/capabilities', render: () => <CapabilitiesPage /> },
  { pattern: '/capabilities/:slug', render: (p) => <CapabilityPage slug={p.slug} /> },
  { pattern: '/services/:key', render: (p) => <ServicePage serviceKey={p.key} /> },
  { pattern: '/agents/:id', render: (p) => <AgentPage agentId={p.id} /> },
  { pattern: '/skills', render: () => <SkillsPage /> },
  { pattern: '/skills/:id', render: (p) => <SkillPage id={p.id} /> },
  { pattern: '/webmcp', render: () => <WebmcpPage /> },
  { pattern: '/health', render: () => <HealthPage /> },
  { pattern: '/sign-in', render: () => <SignInPage /> },
  { pattern: '/register', render: () => <RegisterPage /> },
  { pattern: '/me', render: () => agent(<MePage />) },
  { pattern: '/live', render: () => agent(<LivePage />) },
  { pattern: '/executions', render: () => agent(<ExecutionsPage />) },
  { pattern: '/executions/new', render: () => agent(<ExecutePage />) },
  { pattern: '/executions/:id', render: (p) => agent(<ExecutionPage id={p.id} />) },
  { pattern: '/services', render: () => agent(<ServicesPage />) },
  { pattern: '/keys', render: () => agent(<KeysPage />) },
  { pattern: '/wallet', render: () => agent(<WalletPage />) },
  { pattern: '/mandates', render: () => agent(<MandatesPage />) },
  { pattern: '/webhooks', render: () => agent(<WebhooksPage />) },
  { pattern: '/webhooks/:id', render: (p) => agent(<WebhookPage id={p.id} />) },
  { pattern: '/disputes', render: () => agent(<DisputesPage />) },
  { pattern: '/disputes/new', render: () => agent(<OpenDisputePage />) },
  { pattern: '/tickets', render: () => agent(<TicketsPage />) },
  { pattern: '/tickets/:key', render: (p) => agent(<TicketPage ticketKey={p.key} />) },
  { pattern: '/tasks', render: () => agent(<TasksPage />) },
  { pattern: '/tasks/:id', render: (p) => agent(<TaskPage id={p.id} />) },
  { pattern: '/swarms', render: () => agent(<SwarmsPage />) },
  { pattern: '/swarms/:id', render: (p) => agent(<SwarmPage id={p.id} />) },
  { pattern: '/uto', render: () => agent(<UtoPage />) },
  { pattern: '/uto/:id', render: (p) => agent(<UtoTicketPage id={p.id} />) },
  { pattern: '/memory', render: () => agent(<MemoryPage />) },
  { pattern: '/memory/:id', render: (p) => agent(<MemoryStorePage id={p.id} />) },
  { pattern: '/admin', render: () => admin(<AdminPage />) },
  { pattern: '/admin/disputes', render: () => admin(<AdminDisputesPage />) },
  { pattern: '/admin/agents', render: () => admin(<AdminAgentsPage />) },
  { pattern: '/admin/outbox', render: () => admin(<AdminOutboxPage />) },
];

const MARKET: [string, string][] = [
  ['/', 'Market'],
  ['/capabilities', 'Capabilities'],
  ['/skills', 'Skills'],
  ['/webmcp', 'WebMCP'],
  ['/health', 'Health'],
];

const AGENT: [string, string][] = [
  ['/me', 'Your agent'],
  ['/live', 'Live'],
  ['/executions', 'Executions'],
  ['/services', 'Services'],
  ['/keys', 'Keys'],
  ['/wallet', 'Wallet'],
  ['/mandates', 'Mandates'],
  ['/webhooks', 'Webhooks'],
  ['/disputes', 'Disputes'],
  ['/tickets', 'Tickets'],
  ['/tasks', 'Tasks'],
  ['/swarms', 'Swarms'],
  ['/uto', 'UTO'],
  ['/memory', 'Memory'],
];

const ADMIN: [string, string][] = [
  ['/admin', 'Administration'],
  ['/admin/disputes', 'Disputes to decide'],
  ['/admin/agents', 'Agents'],
  ['/admin/outbox', 'Outbox'],
];

export function App() {
  const { path } = useLocation();
  const session = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const found = match(ROUTES, path);
  const navLink = ([to, label]: [string, string]) => {
    const current = to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`);
    return (
      <li key={to}>
        <Link to={to} aria-current={current ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
          {label}
        </Link>
      </li>
    );
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Agent Capability Marketplace
        </Link>
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="nav" aria-label="Console" className={menuOpen ? 'open' : undefined}>
          <ul>{MARKET.map(navLink)}</ul>
          {session?.kind === 'agent' && <ul aria-label="Your agent">{AGENT.map(navLink)}</ul>}
          {session?.kind === 'admin' && <ul aria-label="Administration">{ADMIN.map(navLink)}</ul>}
          <div className="session">
            {session ? (
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  signOut();
                  setMenuOpen(false);
                  navigate('/');
                }}
              >
                Sign out
              </button>
            ) : (
              <Link to="/sign-in" className="button" onClick={() => setMenuOpen(false)}>
                Sign in
              </Link>
            )}
          </div>
        </nav>
      </header>
      <main id="main">
        {found ? (
          found.route.render(found.params)
        ) : (
          <Page title="Not found">
            <p>
              There is no page at this address. <Link to="/">Back to the market</Link>.
            </p>
          </Page>
        )}
      </main>
    </>
  );
}
