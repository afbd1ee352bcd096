// REST peer: Express 5 answering GET /api/v1/agents/me with the same bearer lookup as the server
// (sha256 of the key, credential joined to its agent, not revoked) and a few of the agent's fields.
import http from 'node:http';
import express from 'express';
import { bearerSecret, main, openPeerDb, serve, sha256Hex } from './common';

main(async () => {
  const db = await openPeerDb();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/api/v1/agents/me', async (req, res) => {
    const secret = bearerSecret(req.headers.authorization);
    const agent = secret ? await db.agentByKeyHash(sha256Hex(secret)) : undefined;
    if (!agent) {
      res.status(401).json({ code: 'unauthorized' });
      return;
    }
    res.json({
      agent_id: agent.id,
      agent_key: agent.agent_key,
      name: agent.name,
      description: agent.description,
      reputation_score: agent.reputation,
      status: agent.status,
      autonomy_level: agent.autonomy_level,
      capabilities: agent.capabilities,
      created_at: agent.created_at,
      updated_at: agent.updated_at,
    });
  });
  // The same hash lookup as POST /api/v1/keys/verify, answering the same fields.
  app.post('/api/v1/keys/verify', express.json({ limit: '1mb' }), async (req, res) => {
    const key = (req.body as { key?: unknown })?.key;
    const row = typeof key === 'string' ? await db.subKeyByHash(sha256Hex(key)) : undefined;
    const now = new Date();
    if (
      !row ||
      row.agent_status !== 'ACTIVE' ||
      row.service_status !== 'active' ||
      (row.expires_at && row.expires_at <= now) ||
      (row.grace_ends_at && row.grace_ends_at <= now)
    ) {
      res.status(401).json({ code: 'unauthorized' });
      return;
    }
    const tier = row.reputation >= 86 ? 'star' : row.reputation >= 61 ? 'trusted' : row.reputation >= 31 ? 'contributor' : 'newcomer';
    res.json({
      valid: true,
      agent_id: row.agent_id,
      reputation: row.reputation,
      tier,
      sub_key_id: row.id,
      service_key: row.service_key,
      permissions: row.permissions,
    });
  });
  serve(http.createServer(app), () => db.close());
});
