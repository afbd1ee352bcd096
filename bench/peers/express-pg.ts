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
  serve(http.createServer(app), () => db.close());
});
