// Nothing lost (DESIGN, CONTRACT §7): an event committed with its change is delivered even when the
// server is killed with SIGKILL while the delivery is in flight; the restarted server sends it again from
// the database, with the same webhook-id.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertTestCaTrusted } from '../support/https';
import { launchServer } from '../support/process';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(120_000);

const launch = (dataDir: string) => launchServer(dataDir, { OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_TIMEOUT_MS: '2000', DELIVERY_POLL_MS: '100' });

let dataDir: string;
let receiver: Receiver;
beforeAll(async () => {
  assertTestCaTrusted();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-outbox-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('delivers an event whose delivery was cut off by kill -9, after the restart', async () => {
  const first = await launch(dataDir);
  const base = `http://127.0.0.1:${first.port}/api/v1`;
  const reg = await fetch(`${base}/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `outbox-crash-${Date.now()}`, description: 'crash test', ownerEmail: 'c@example.com' }),
  }).then((r) => r.json());
  const auth = { authorization: `Bearer ${reg.master_key}`, 'content-type': 'application/json' };
  const hook = await fetch(`${base}/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: receiver.url, events: ['agent.updated'] }) });
  expect(hook.status).toBe(201);

  // The receiver holds the first request open; the server dies while it waits.
  receiver.respond('hang');
  const firstRequest = receiver.waitFor(1);
  const patch = await fetch(`${base}/agents/me`, { method: 'PATCH', headers: auth, body: JSON.stringify({ description: 'changed before the crash' }) });
  expect(patch.status).toBe(200);
  const [inFlight] = await firstRequest;
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await launch(dataDir);
  try {
    const got = await receiver.waitFor(2, 30_000);
    expect(got[1].json).toMatchObject({ type: 'agent.updated', data: { description: 'changed before the crash' } });
    expect(got[1].headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});
