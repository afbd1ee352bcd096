// The web console in a real browser: Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium), driven by
// Playwright, against the server as `npm start` runs it (its own process, on an embedded database) and a
// provider on loopback HTTPS. The flows a person would do, each checked by what the page shows and by
// axe-core finding nothing serious on the main pages; at a phone's width; and the build's size.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { eventually, within } from '../support/expect';
import { launchServer, type Running } from '../support/process';
import { startProvider, type Provider } from '../support/provider';
import { startTcpProxy } from '../support/tcp-proxy';

const root = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ADMIN_KEY = `key_admin_${'Cn'.repeat(20)}`;
/** CONSOLE_SCREENSHOTS=dir: the main pages are saved there as PNGs (docs/console.md shows them). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS;
// The build's own freshness rule (console/build.cjs) decides whether the tests build it first.
const { fresh, OUT } = require(path.join(root, 'console/build.cjs')) as { fresh: () => boolean; OUT: string };
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server: Running;
let provider: Provider;
let browser: Browser;
let base: string;
let dataDir: string;

beforeAll(async () => {
  // As npm start would: the build made again when its sources changed since.
  if (!fresh()) {
    const built = spawnSync(process.execPath, [path.join(root, 'console/build.cjs')], { cwd: root, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`the console could not be built: ${built.stderr}`);
  }
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-'));
  [server, provider] = await Promise.all([
    launchServer(dataDir, { OUTBOUND_ALLOW_PRIVATE: '1', ADMIN_KEY, QUALITY_DELAY_MS: '100' }),
    startProvider('console-provider'),
  ]);
  base = `http://127.0.0.1:${server.port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.child.kill('SIGTERM');
  await server?.exited;
  await provider?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A new tab in a context of its own (its own session storage), failing the test on any page error. */
async function newPage(options: { width?: number } = {}): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  return { page, context, errors };
}

/** Saves the page as `name`.png when CONSOLE_SCREENSHOTS names a directory. */
async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core's serious and critical findings on the page as it is. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol: the page's CSP (scripts from its origin only) refuses an
  // injected script tag, and stays in force for everything else.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: { run: (ctx: Document, o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.targets.slice(0, 3).join(', ')}`);
}

/** Registers an agent through the console and signs in with its key; answers the key. */
async function registerAndSignIn(page: Page, name: string): Promise<string> {
  await page.goto(`${base}/console/register`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Description').fill('An agent registered from the console test');
  await page.getByLabel("Owner's email").fill('console@example.com');
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByRole('heading', { name: 'Registered' }).waitFor();
  const key = (await page.locator('.secret-value').textContent())!;
  expect(key).toMatch(/^key_master_/);
  await page.getByRole('button', { name: `Sign in as ${name}` }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  return key;
}

async function registerService(page: Page, name: string, capability: string): Promise<string> {
  await page.goto(`${base}/console/services`);
  await page.getByRole('button', { name: 'Register a service' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Description').fill('A loopback provider for the console test');
  await page.getByLabel('Endpoint').fill(provider.url);
  await page.getByLabel('Capabilities').fill(capability);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await textMatching(page.locator('.secret-value'), /^whsec_/);
  const row = page.getByRole('row', { name: new RegExp(name) });
  await row.waitFor();
  return (await row.locator('code').first().textContent())!;
}

/** Waits for `done` to show; fails at once with what the page says when it shows an error instead. */
async function settled(page: Page, done: Locator): Promise<void> {
  const alert = page.getByRole('alert');
  await done.or(alert).first().waitFor();
  if (!(await done.count())) throw new Error(`the page says: ${await alert.first().textContent()}`);
}

/** Waits (up to 10 s) until the first element of `locator` has text matching `re`; answers the text. */
async function textMatching(locator: Locator, re: RegExp): Promise<string> {
  await locator.first().waitFor();
  const text = await eventually(
    async () => (await locator.first().textContent()) ?? '',
    (t) => re.test(t),
    10_000,
    { everyMs: 50 },
  );
  if (!re.test(text)) throw new Error(`expected ${re} in ${JSON.stringify(text)}`);
  return text;
}

describe('the console', () => {
  it('serves the page at /console with its headers, any path under it, and its hashed assets for good', async () => {
    const page = await fetch(`${base}/console/capabilities/summarize`, { headers: { 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${base}${script}`, { method: 'HEAD' });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/console/assets/gone.js`)).status).toBe(404);
  });

  it('is under 300 KB gzipped, scripts and styles together', () => {
    let gzipped = 0;
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.(js|css|html)$/.test(e.name)) gzipped += zlib.gzipSync(fs.readFileSync(full), { level: 9 }).length;
      }
    };
    walk(OUT);
    expect(gzipped).toBeLessThan(300 * 1024);
  });

  it('browses the market without a key: capabilities, a ranking with its breakdown, health; first paint under a second', async () => {
    // First paint, as a first visit sees it: each load in a fresh context (nothing cached), after one load
    // that starts the browser's renderer. The best of three: the machine running the rest of the suite
    // beside this one only adds time, so the fastest load is the page's own cost.
    const paints: number[] = [];
    for (let i = 0; i < 4; i++) {
      const fresh = await newPage();
      await fresh.page.goto(`${base}/console/`);
      await fresh.page.getByRole('heading', { level: 1, name: 'Market' }).waitFor();
      const paint = await fresh.page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
      expect(paint).not.toBeNull();
      expect(fresh.errors).toEqual([]);
      await fresh.context.close();
      if (i > 0) paints.push(paint!);
    }
    expect(Math.min(...paints)).toBeLessThan(1000);

    const { page, context, errors } = await newPage();
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { level: 1, name: 'Market' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'market');

    await page.getByRole('link', { name: 'Capabilities' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Capabilities' }).waitFor();
    await page.getByLabel('Filter').fill('summar');
    await page
      .getByRole('link', { name: /summar/i })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Providers, as resolve ranks them' }).waitFor();
    // The marketplace serves summarize itself: at least that provider is ranked.
    await page.getByRole('table', { name: /Providers of/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'capability');

    await page.goto(`${base}/console/health`);
    await page.getByText('Components').first().waitFor();
    await page.getByRole('table', { name: 'Components' }).getByText('Database').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('registers, signs in, registers a service, executes and reads the receipt, and sees it arrive live', async () => {
    const { page, context, errors } = await newPage();
    const key = await registerAndSignIn(page, `console-agent-${Date.now()}`);
    expect(await seriousViolations(page)).toEqual([]);
    // The key is in the tab's session storage, never in the address.
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(key);

    const capability = `console-echo-${Date.now()}`;
    await registerService(page, 'Console echo', capability);
    expect(await seriousViolations(page)).toEqual([]);

    // A second tab: the key lives in each tab's own session storage, so it signs in there too.
    const live = await context.newPage();
    live.on('pageerror', (err) => errors.push(err.message));
    await live.goto(`${base}/console/live`);
    await live.getByLabel('Key').fill(key);
    await live.getByRole('button', { name: 'Sign in' }).click();
    await live.getByRole('link', { name: 'Live', exact: true }).click();
    await live.getByRole('heading', { level: 1, name: 'Live' }).waitFor();
    // All three feeds connected.
    await live.locator('.live-live').nth(2).waitFor();
    expect(await seriousViolations(live)).toEqual([]);

    await page.goto(`${base}/console/executions/new`);
    await page.getByLabel('Capability').fill(capability);
    await page.getByLabel('Input (JSON)').fill('{"text": "hello from the console"}');
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.getByRole('heading', { level: 1, name: 'Execution receipt' }).waitFor();
    const attempts = page.getByRole('table', { name: 'Attempts, in order' });
    await attempts.getByText('success').waitFor();
    await page.getByText('hello from the console').waitFor();
    expect(provider.calls.length).toBeGreaterThan(0);
    // Its signed receipt, checked in the page with the browser's WebCrypto against the published keys.
    await page.getByText(/Signature verified with the marketplace's key mk_\w+\. The result shown matches its digest\./).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await shot(page, 'receipt');

    // The live tab got the execution's event without a reload.
    await live
      .getByText(/^execution\./)
      .first()
      .waitFor({ timeout: 10_000 });
    await shot(live, 'live');

    // The executions page takes new ones as they are recorded, here one made through the API.
    await live.getByRole('link', { name: 'Executions' }).click();
    const rows = live.getByRole('table', { name: 'Your executions' }).getByRole('row');
    await rows.nth(1).waitFor();
    const before = await rows.count();
    await live.locator('.live-live').first().waitFor();
    const again = await fetch(`${base}/api/v1/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ capability, input: { text: 'once more' } }),
    });
    expect(again.status).toBe(200);
    // One more body row than before (the header row is not one), without a reload.
    await live.waitForFunction((n) => document.querySelectorAll('.table-wrap table tbody tr').length > n, before - 1, { timeout: 10_000 });

    // A dispute about the call, from its receipt.
    await page.getByRole('link', { name: 'Open a dispute' }).click();
    await page.getByRole('heading', { level: 1, name: 'Open a dispute' }).waitFor();
    await page.getByLabel('Type').selectOption('quality');
    await page.getByLabel('What happened').fill('The echo came back in the wrong case');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Open the dispute' }).click();
    await page.getByRole('heading', { level: 1, name: 'Disputes' }).waitFor();
    await page.getByRole('table', { name: 'Your disputes' }).getByText('The echo came back in the wrong case').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The agent's own page, and its public record with its reputation history.
    await page.getByRole('link', { name: 'Your agent' }).click();
    await page.getByRole('heading', { name: 'Sub-agents' }).waitFor();
    await page.getByRole('link', { name: 'Your public record' }).click();
    await page.getByRole('heading', { name: 'Reputation history' }).waitFor();
    await page.getByRole('table', { name: 'The days its score moved' }).getByRole('row').nth(1).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('lets the administrator decide a dispute, suspend and restore an agent, and read the outbox', async () => {
    const { page, context, errors } = await newPage();
    const name = `console-suspect-${Date.now()}`;
    const agentKey = await registerAndSignIn(page, name);
    const service = await registerService(page, 'Console disputed', `console-disputed-${Date.now()}`);
    const serviceId = (await (await fetch(`${base}/api/v1/services/${service}`)).json()) as { service_id?: string; id?: string };
    await page.goto(`${base}/console/disputes/new?serviceId=${serviceId.service_id ?? serviceId.id}`);
    await page.getByLabel('What happened').fill('Disputed for the administrator to decide');
    await page.getByRole('button', { name: 'Open the dispute' }).click();
    await page.getByRole('heading', { level: 1, name: 'Disputes' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.goto(`${base}/console/sign-in`);
    await page.getByLabel('Key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Administration' }).waitFor();
    await page.getByRole('table', { name: 'Revenue by day' }).or(page.getByText('Nothing here yet.').first()).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'admin');

    await page.getByRole('link', { name: 'Disputes to decide' }).click();
    const row = page.getByRole('row', { name: /Disputed for the administrator to decide/ });
    await row.getByRole('button', { name: /^Decide/ }).click();
    await page.getByLabel('Decision').fill('Refunded in part');
    await page.getByLabel('Refund (dollars)').fill('0');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByLabel('Show').selectOption('');
    await page
      .getByRole('row', { name: /Disputed for the administrator to decide/ })
      .getByText('Refunded in part')
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByLabel('Name starts with').fill(name);
    await page.getByRole('button', { name: `Suspend ${name}` }).click();
    await page.getByRole('button', { name: `Restore ${name}` }).waitFor();
    // Suspended at once: its key is refused.
    expect((await fetch(`${base}/api/v1/agents/me`, { headers: { authorization: `Bearer ${agentKey}` } })).status).toBe(403);
    await page.getByRole('button', { name: `Restore ${name}` }).click();
    await page.getByRole('button', { name: `Suspend ${name}` }).waitFor();
    expect((await fetch(`${base}/api/v1/agents/me`, { headers: { authorization: `Bearer ${agentKey}` } })).status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Outbox' }).click();
    await page.getByRole('heading', { level: 1, name: 'Outbox' }).waitFor();
    await page.getByText('Events waiting to be relayed').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'outbox');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('resumes a live feed after the connection drops, missing nothing and repeating nothing', async () => {
    // The browser reaches the server through a proxy the test can cut, as a network does.
    const proxy = await startTcpProxy('127.0.0.1', server.port);
    const { page, context, errors } = await newPage();
    try {
      const via = `http://127.0.0.1:${proxy.port}`;
      await page.goto(`${via}/console/sign-in`);
      const agent = (await (
        await fetch(`${base}/api/v1/agents/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `console-resume-${Date.now()}`, description: 'Resumes its feeds', ownerEmail: 'resume@example.com' }),
        })
      ).json()) as { master_key: string };
      await page.getByLabel('Key').fill(agent.master_key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Live', exact: true }).click();
      await page.locator('.live-live').nth(2).waitFor();
      const radio = page.getByRole('region', { name: 'Radio' });
      const announce = async (message: string) => {
        const res = await fetch(`${base}/api/v1/admin/radio/announcements`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
          body: JSON.stringify({ message }),
        });
        expect(res.status).toBe(201);
      };
      const tag = Date.now();
      // "Live" shows once the socket is open; the server registers the subscription a moment after, and an
      // announcement before that is not the feed's. So the feed is first seen to carry one.
      for (let i = 0; ; i++) {
        await announce(`warming ${tag} ${i}`);
        const arrived = await radio
          .locator('li', { hasText: `warming ${tag} ${i}` })
          .waitFor({ state: 'attached', timeout: 2_000 })
          .then(
            () => true,
            () => false,
          );
        if (arrived) break;
        if (i === 10) throw new Error('the radio feed carried no announcement in 20 s');
      }
      await announce(`before the drop ${tag}`);
      await radio.locator('li', { hasText: `before the drop ${tag}` }).waitFor({ state: 'attached' });

      proxy.cut();
      await radio.getByText('Reconnecting…').waitFor();
      await announce(`during the drop ${tag}`);
      proxy.restore();

      await radio.locator('li', { hasText: `during the drop ${tag}` }).waitFor({ state: 'attached', timeout: 20_000 });
      await radio.getByText('Live', { exact: true }).waitFor();
      expect(await radio.locator('li', { hasText: `before the drop ${tag}` }).count()).toBe(1);
      expect(await radio.locator('li', { hasText: `during the drop ${tag}` }).count()).toBe(1);
      // The page's own errors: the dropped socket is expected, nothing else.
      expect(errors.filter((e) => !/WebSocket|ERR_CONNECTION|net::/i.test(e))).toEqual([]);
    } finally {
      await context.close();
      await proxy.close();
    }
  }, 90_000);

  it('provisions and rotates a sub-key, showing each new key once', async () => {
    const { page, context, errors } = await newPage();
    await registerAndSignIn(page, `console-keys-${Date.now()}`);
    const serviceKey = await registerService(page, 'Console keyed', `console-keyed-${Date.now()}`);
    await page.goto(`${base}/console/keys`);
    await page.getByLabel('Service key').fill(serviceKey);
    await page.getByRole('button', { name: 'Provision' }).click();
    const first = await textMatching(page.locator('.secret-value'), /^key_service_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: /^Rotate the key ending/ }).click();
    expect(await textMatching(page.locator('.secret-value'), /^key_service_/)).not.toBe(first);
    await page.getByRole('table', { name: 'Your sub-keys' }).getByText('grace').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("does the rest of an agent's work from forms: a sub-agent and its spend mandate, a webhook edited and deleted, a ticket filed, commented and moved, a task, a swarm, a UTO ticket, memory written, edited and deleted", async () => {
    const { page, context, errors } = await newPage();
    // The confirmations (cancel, delete) are accepted.
    page.on('dialog', (dialog) => void dialog.accept());
    const tag = Date.now();
    await registerAndSignIn(page, `console-forms-${tag}`);

    // A sub-agent: its master key shown once, and the sub-agent in the list.
    await page.getByRole('button', { name: 'Create a sub-agent' }).click();
    await page.getByLabel("Sub-agent's name").fill(`console-sub-${tag}`);
    await page.getByLabel('What it does').fill('Runs errands for the console test');
    await page.getByLabel('Autonomy').selectOption('DELEGATE');
    await page.getByRole('button', { name: 'Create the sub-agent' }).click();
    await settled(page, page.locator('.secret-value'));
    await textMatching(page.locator('.secret-value'), /^key_master_/);
    await page
      .getByRole('table', { name: 'Your sub-agents, at any depth' })
      .getByRole('row', { name: new RegExp(`console-sub-${tag}.*DELEGATE`) })
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // A spend mandate for it: granted from the form, shown against its caps, revoked.
    await page.goto(`${base}/console/mandates`);
    await page.getByRole('button', { name: 'Grant a mandate' }).click();
    await page.getByLabel('Sub-agent').selectOption({ label: `console-sub-${tag}` });
    await page.getByLabel('Per day (USD)').fill('2.50');
    await page.getByRole('button', { name: 'Grant the mandate' }).click();
    const granted = page.getByRole('table', { name: 'Mandates you granted (1)' }).getByRole('row', { name: new RegExp(`console-sub-${tag}`) });
    await granted.getByText('$0.00 of $2.50 (0 %)').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await granted.getByRole('button', { name: `Revoke the mandate of console-sub-${tag}` }).click();
    await granted.getByText('ended').waitFor();

    // A webhook: added, edited (its events, switched off), deleted.
    await page.goto(`${base}/console/webhooks`);
    await page.getByLabel('URL').fill(`${provider.url}/hooks`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await settled(page, page.locator('.secret-value'));
    await textMatching(page.locator('.secret-value'), /^whsec_/);
    await page.getByRole('link', { name: `${provider.url}/hooks` }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook deliveries' }).waitFor();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Events', { exact: true }).fill('execution.succeeded, execution.failed');
    await page.getByRole('checkbox', { name: /^Active/ }).uncheck();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save' }).click();
    await settled(page, page.getByRole('button', { name: 'Edit', exact: true }));
    await page.locator('.facts').getByText('execution.succeeded, execution.failed').waitFor();
    await page.locator('.facts').getByText('no', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('Nothing here yet.').waitFor();

    // A ticket: filed (through the support-ticket capability), commented on, moved along.
    await page.goto(`${base}/console/tickets`);
    await page.getByLabel('Type').selectOption('bug');
    await page.getByLabel('Subject').fill(`The console ${tag} needs a ticket`);
    await page.getByLabel('Description').fill('Filed from the console test');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'File the ticket' }).click();
    await settled(page, page.getByLabel('Your comment'));
    await page.getByRole('heading', { level: 1, name: new RegExp(`^ST-\\d+: The console ${tag} needs a ticket$`) }).waitFor();
    await page.getByLabel('Your comment').fill('A first comment from the console');
    await page.getByRole('button', { name: 'Add the comment' }).click();
    await page.locator('.feed').getByText('A first comment from the console').waitFor();
    await page.getByLabel('New status').selectOption('in_progress');
    await page.getByRole('button', { name: 'Move' }).click();
    await page
      .getByRole('table', { name: 'Status changes' })
      .getByRole('row', { name: /open.*in_progress/ })
      .waitFor();
    // Any of the five statuses moves to the one given (spec §3): a closed ticket reopens.
    await page.getByLabel('New status').selectOption('closed');
    await page.getByRole('button', { name: 'Move' }).click();
    await page
      .getByRole('table', { name: 'Status changes' })
      .getByRole('row', { name: /in_progress.*closed/ })
      .waitFor();
    await page.getByLabel('New status').selectOption('waiting');
    await page.getByRole('button', { name: 'Move' }).click();
    await page
      .getByRole('table', { name: 'Status changes' })
      .getByRole('row', { name: /closed.*waiting/ })
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'ticket');

    // A task with a budget, then cancelled.
    await page.goto(`${base}/console/tasks`);
    await page.getByLabel('Intent').fill(`Console task ${tag}`);
    await page.getByLabel('Success criteria').fill('It is done\nIt is checked');
    await page.getByLabel('Budget').fill('two dollars');
    await page.getByRole('button', { name: 'Create the task' }).click();
    await page.getByText('A sum in dollars, such as 2.50').waitFor();
    await page.getByLabel('Budget').fill('2.50');
    await page.getByRole('button', { name: 'Create the task' }).click();
    await settled(page, page.getByRole('heading', { name: 'Delegations' }));
    await page.getByRole('heading', { level: 1, name: `Console task ${tag}` }).waitFor();
    await page.locator('.facts').getByText('It is done; It is checked').waitFor();
    await page.locator('.facts').getByText('$2.50').waitFor();
    await page.getByRole('button', { name: 'Cancel the task' }).click();
    await page.locator('.facts').getByText('cancelled').waitFor();

    // A swarm of one step, which runs to its end.
    await page.goto(`${base}/console/swarms`);
    await page.getByLabel('Goal').fill(`Console swarm ${tag}`);
    await page
      .getByLabel('Steps (JSON)')
      .fill('[{ "capability": "summarize", "input": { "text": "The console starts a swarm. It has one step. The step summarizes this text." } }]');
    await page.getByRole('button', { name: 'Start the swarm' }).click();
    await settled(page, page.getByRole('heading', { name: 'Steps' }));
    await page.getByRole('heading', { level: 1, name: `Console swarm ${tag}` }).waitFor();
    await page.getByRole('table', { name: 'Steps, in order' }).getByText('summarize').waitFor();
    await page.locator('.facts').getByText('completed').waitFor({ timeout: 60_000 });

    // A UTO ticket, then cancelled by its owner.
    await page.goto(`${base}/console/uto`);
    await page.getByLabel('Intent').fill(`Console UTO ${tag}`);
    await page.getByLabel('Domain').fill('legal');
    await page.getByLabel('Context (JSON)').fill('{"jurisdiction": "EU"');
    await page.getByRole('button', { name: 'Submit the ticket' }).click();
    await page.getByText(/^Context is not JSON/).waitFor();
    await page.getByLabel('Context (JSON)').fill('{"jurisdiction": "EU"}');
    await page.getByRole('button', { name: 'Submit the ticket' }).click();
    await settled(page, page.getByRole('heading', { name: 'Matches' }));
    await page.getByRole('heading', { level: 1, name: `Console UTO ${tag}` }).waitFor();
    await page.getByRole('button', { name: 'Cancel the ticket' }).click();
    await page
      .getByRole('table', { name: 'State changes' })
      .getByRole('row', { name: /cancelled/ })
      .waitFor();

    // A memory store; an entry written, edited (its next version) and deleted.
    await page.goto(`${base}/console/memory`);
    await page.getByLabel('Name', { exact: true }).fill(`console-store-${tag}`);
    await page.getByRole('button', { name: 'Create the store' }).click();
    await settled(page, page.getByRole('heading', { name: 'Write an entry' }));
    await page.getByRole('heading', { level: 1, name: `console-store-${tag}` }).waitFor();
    await page.getByLabel('Key', { exact: true }).fill('greeting');
    await page.getByLabel('Value (JSON)').fill('{"text": "hello"}');
    await page.getByRole('button', { name: 'Write' }).click();
    const entries = page.getByRole('table', { name: 'Entries' });
    await entries.getByRole('row', { name: /greeting.*hello/ }).waitFor();
    await page.getByRole('button', { name: 'Edit greeting' }).click();
    expect(await page.getByLabel('Key', { exact: true }).inputValue()).toBe('greeting');
    await page.getByLabel('Value (JSON)').fill('{"text": "hello again"}');
    await page.getByRole('button', { name: 'Write' }).click();
    await entries.getByRole('row', { name: /greeting\s*2.*hello again/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Delete greeting' }).click();
    await page.getByText('0 entries in this kv store (private)').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("tries a capability from its page under a routing policy, and shows a service's measured quality as charts, at a phone's width too", async () => {
    const { page, context, errors } = await newPage();
    await registerAndSignIn(page, `console-try-${Date.now()}`);
    const capability = `console-try-${Date.now()}`;
    const serviceKey = await registerService(page, 'Console tried', capability);

    await page.goto(`${base}/console/capabilities/${capability}`);
    await page.getByRole('heading', { name: 'Try it' }).waitFor();
    await page.getByLabel('Input (JSON)').fill('{"text": "tried"}');
    await page.getByLabel('At most (cents)').fill('5');
    await page.getByLabel('Deadline (ms)').fill('20000');
    await page.getByLabel('Only these providers').fill(serviceKey);
    await page.getByRole('checkbox', { name: /Fall back/ }).uncheck();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: `Call ${capability}` }).click();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await settled(page, attempts);
    await attempts.getByText('success').waitFor();
    await page.locator('.receipt').getByText(serviceKey).first().waitFor();
    const call = provider.calls.filter((c) => c.method === 'POST').at(-1)!;
    expect(call.json).toMatchObject({ capability, input: { text: 'tried' } });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'try-it');

    // The service's page: its health and figures, and the days as charts, once the call is counted.
    await within(
      30_000,
      async () => {
        const q = (await (await fetch(`${base}/api/v1/services/${serviceKey}/quality`)).json()) as { quality: { calls: number } | null; days: unknown[] };
        return q.quality?.calls === 1 && q.days.length > 0;
      },
      {
        what: 'the call counted in the quality published',
        everyMs: 200,
      },
    );
    await page.goto(`${base}/console/services/${serviceKey}`);
    await page.getByRole('heading', { name: 'What the marketplace measured' }).waitFor();
    await page.getByRole('img', { name: /^Uptime: 1 of 1 days observed/ }).waitFor();
    await page.getByRole('img', { name: /^Success: 1 of 1 days observed/ }).waitFor();
    await page.getByText('100% of 1 call (few)').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'service-quality');

    const phone = await newPage({ width: 375 });
    for (const at of [`/console/services/${serviceKey}`, `/console/capabilities/${capability}`]) {
      await phone.page.goto(`${base}${at}`);
      await phone.page.getByRole('heading', { level: 1 }).waitFor();
      await phone.page.getByRole('heading', { name: /What the marketplace measured|Try it/ }).waitFor();
      // What sticks out, when something does (a scroller's own content scrolls inside it).
      const wide = await phone.page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-wrap'))
          .slice(0, 3)
          .map((e) => `${e.tagName}.${e.className}`),
      );
      expect({ at, fits: await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), wide }).toEqual({
        at,
        fits: true,
        wide: [],
      });
      expect(await seriousViolations(phone.page)).toEqual([]);
    }
    expect([...errors, ...phone.errors]).toEqual([]);
    await phone.context.close();
    await context.close();
  }, 120_000);

  it("fits a phone's width: no sideways scroll, and the menu opens from its button", async () => {
    const { page, context, errors } = await newPage({ width: 375 });
    await page.goto(`${base}/console/capabilities`);
    await page.getByRole('heading', { level: 1, name: 'Capabilities' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('link', { name: 'Health' }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await shot(page, 'phone-menu');
    await page.getByRole('link', { name: 'Health' }).click();
    await page.getByRole('heading', { level: 1, name: 'Health' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('is usable from the keyboard: the skip link, then the navigation', async () => {
    const { page, context } = await newPage();
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { level: 1, name: 'Market' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the page');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('A');
    await context.close();
  });
});
