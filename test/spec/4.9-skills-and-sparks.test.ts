// Spec §4.9 skills and sparks, with §2's Skill and Spark records and §3's skill row: a skill created,
// published into the marketplace, forked and installed; the marketplace's filters; a spark published from a
// task, adding 2 reputation, listed publicly and among the publisher's own, and the bound on what sparks
// add, stated in the answer when it applies.
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

const skillName = () =>
  uniqueName('skill')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 60);

async function createSkill(key: string, body: Record<string, unknown> = {}) {
  const res = await call('POST', '/agent-skills', { key, body: { name: skillName(), runtime: 'python', entrypoint: 'main.run', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

async function newTask(key: string, intent = 'Find three sources on tidal power') {
  const res = await call('POST', '/tasks', { key, body: { intent } });
  expect(res.status).toBe(201);
  return res.body.task_id as string;
}

const publishSpark = (key: string, taskId: string, title = 'Three sources') =>
  call('POST', `/tasks/${taskId}/publish-spark`, {
    key,
    body: { title, content: 'Tidal power: three good sources.', spark_type: 'insight', quality_score: 80 },
  });

describe('§4.9 skills', () => {
  it('§4.9 POST /agent-skills with name, runtime and entrypoint answers 201 id, name, runtime', async () => {
    const me = await registerAgent(server);
    const name = skillName();
    const res = await call('POST', '/agent-skills', { key: me.key, body: { name, runtime: 'nodejs', entrypoint: 'index.handler' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(String), name, runtime: 'nodejs' });
  });

  it('§4.9 publishing a skill answers published; §3 a published skill appears in the marketplace', async () => {
    const me = await registerAgent(server);
    const skill = await createSkill(me.key, { category: uniqueName('cat').toLowerCase() });
    const res = await call('POST', `/agent-skills/${skill.id}/publish`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.published).toBe(true);
    const market = await call('GET', `/agent-skills/marketplace?category=${skill.category}`);
    expect(market.status).toBe(200);
    expect(market.body).toMatchObject({ total: 1, skills: [expect.objectContaining({ id: skill.id, name: skill.name })] });
  });

  it('§4.9 forking a skill answers 201 forked_id', async () => {
    const author = await registerAgent(server);
    const skill = await createSkill(author.key);
    await call('POST', `/agent-skills/${skill.id}/publish`, { key: author.key });
    const me = await registerAgent(server);
    const res = await call('POST', `/agent-skills/${skill.id}/fork`, { key: me.key });
    expect(res.status).toBe(201);
    expect(res.body.forked_id).toEqual(expect.any(String));
    expect(res.body.forked_id).not.toBe(skill.id);
  });

  it('§4.9 installing a skill answers 200 installed', async () => {
    const author = await registerAgent(server);
    const skill = await createSkill(author.key);
    await call('POST', `/agent-skills/${skill.id}/publish`, { key: author.key });
    const me = await registerAgent(server);
    const res = await call('POST', `/agent-skills/${skill.id}/install`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.installed).toBe(true);
  });

  it('§4.9 the marketplace filters by runtime, category and popularity, and answers skills and total', async () => {
    const author = await registerAgent(server);
    const category = uniqueName('cat').toLowerCase();
    const python = await createSkill(author.key, { category, runtime: 'python' });
    const deno = await createSkill(author.key, { category, runtime: 'deno', entrypoint: 'mod.ts' });
    for (const s of [python, deno]) await call('POST', `/agent-skills/${s.id}/publish`, { key: author.key });
    // Two installs of the deno skill, one of the python skill: the deno skill is the more popular.
    for (const [skill, times] of [
      [deno, 2],
      [python, 1],
    ] as const) {
      for (let i = 0; i < times; i++) await call('POST', `/agent-skills/${skill.id}/install`, { key: (await registerAgent(server)).key });
    }
    const byCategory = await call('GET', `/agent-skills/marketplace?category=${category}&sort=popular`);
    expect(byCategory.status).toBe(200);
    expect(byCategory.body.total).toBe(2);
    expect(byCategory.body.skills.map((s: { id: string }) => s.id)).toEqual([deno.id, python.id]);
    const byRuntime = await call('GET', `/agent-skills/marketplace?category=${category}&runtime=python`);
    expect(byRuntime.body).toMatchObject({ total: 1, skills: [expect.objectContaining({ id: python.id, runtime: 'python' })] });
  });
});

describe('§4.9 sparks', () => {
  it('§4.9 publishing a spark adds 2 reputation: 201 spark.id and reputation.publisher_delta 2', async () => {
    const me = await registerAgent(server);
    const before = (await call('GET', '/agents/me', { key: me.key })).body.reputation_score;
    const taskId = await newTask(me.key);
    const res = await publishSpark(me.key, taskId);
    expect(res.status).toBe(201);
    expect(res.body.spark.id).toEqual(expect.any(String));
    expect(res.body.reputation.publisher_delta).toBe(2);
    expect((await call('GET', '/agents/me', { key: me.key })).body.reputation_score).toBe(before + 2);
  });

  it('§4.9 GET /sparks answers sparks and total, with no credential', async () => {
    const me = await registerAgent(server);
    const spark = (await publishSpark(me.key, await newTask(me.key), 'Listed publicly')).body.spark;
    const res = await call('GET', `/sparks?agentId=${me.agentId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, sparks: [expect.objectContaining({ id: spark.id, title: 'Listed publicly' })] });
  });

  it('§4.1 GET /my/sparks answers the caller’s sparks', async () => {
    const me = await registerAgent(server);
    const spark = (await publishSpark(me.key, await newTask(me.key))).body.spark;
    const res = await call('GET', '/my/sparks', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.sparks.map((s: { id: string }) => s.id)).toEqual([spark.id]);
  });

  it('§4.9 a bound on what sparks add is stated in the answer when it applies: publisher_delta 0 with the reason', async () => {
    const me = await registerAgent(server);
    const taskId = await newTask(me.key);
    const first = await publishSpark(me.key, taskId);
    expect(first.body.reputation).toMatchObject({ publisher_delta: 2, reason: null });
    // One rewarded spark per task: a second spark of the same task is published and adds nothing, saying why.
    const again = await publishSpark(me.key, taskId, 'More on it');
    expect(again.status).toBe(201);
    expect(again.body.spark.id).toEqual(expect.any(String));
    expect(again.body.reputation).toMatchObject({ publisher_delta: 0, reason: expect.stringMatching(/one rewarded spark per task/i) });
    // A daily cap: sparks of new tasks add 2 each until what sparks add in a day is spent, then 0 with the reason.
    const deltas: number[] = [first.body.reputation.publisher_delta];
    let capped: { publisher_delta: number; reason: string | null } | undefined;
    for (let i = 0; i < 10 && !capped; i++) {
      const res = await publishSpark(me.key, await newTask(me.key, `Task ${i}`));
      expect(res.status).toBe(201);
      if (res.body.reputation.publisher_delta === 0) capped = res.body.reputation;
      else deltas.push(res.body.reputation.publisher_delta);
    }
    expect(capped).toMatchObject({ publisher_delta: 0, reason: expect.stringMatching(/in any 24 hours/) });
    expect(deltas.every((d) => d === 2)).toBe(true);
    expect((await call('GET', '/agents/me', { key: me.key })).body.reputation_score).toBe(20 + deltas.reduce((a, b) => a + b, 0));
  });
});
