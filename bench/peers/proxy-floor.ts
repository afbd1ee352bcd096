// The floor of the execute scenario: the least a durable marketplace could do per call. A bare node:http
// server that forwards the request body to the provider (undici, pooled keep-alive HTTPS, as ours) and
// writes one row, committed, before it answers the provider's result. No authentication, no ranking, no
// signature, no ledger: what is left of ours' overhead above this line is the marketplace's own work.
import http from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Agent, request } from 'undici';
import { main, serve } from './common';

const PROVIDER = process.env.BENCH_PROVIDER_URL;

main(async () => {
  if (!PROVIDER) throw new Error('BENCH_PROVIDER_URL is not set');
  const table = `bench_floor_${process.pid}`;
  let insert: (text: string) => Promise<unknown>;
  let close: () => Promise<void>;
  if (process.env.DATABASE_URL) {
    // A real table (a temporary one would skip the WAL, and with it the commit's flush).
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    pool.on('error', () => {});
    await pool.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, result jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
    insert = (text) => pool.query({ name: 'floor_insert', text: `INSERT INTO ${table} (result) VALUES ($1)`, values: [text] });
    close = async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
      await pool.end();
    };
  } else {
    const db = new PGlite();
    await db.exec(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, result jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
    insert = (text) => db.query(`INSERT INTO ${table} (result) VALUES ($1)`, [text]);
    close = () => db.close();
  }
  const agent = new Agent({ connections: 128, keepAliveTimeout: 10_000 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const answer = await request(`${PROVIDER}/run`, {
            dispatcher: agent,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: Buffer.concat(chunks),
          });
          const text = await answer.body.text();
          await insert(text);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }).end(text);
        } catch (err) {
          res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).message }));
        }
      })();
    });
  });
  serve(server, async () => {
    await agent.close();
    await close();
  });
});
