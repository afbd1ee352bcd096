// The nlp capabilities the marketplace serves as its sellers' last resort (issue 35, docs/capabilities/nlp.md):
// with a model backend (a chat-completions server on loopback that checks each request: the model, the
// messages, the strict JSON Schema response format), every one answers the model's output, held to its
// schema, with the backend's usage on the attempt; without one, five answer from libraries (wink-nlp,
// TypeScript, ESLint) and the other eight are not offered (503 capability_unavailable).
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';
import { schemaProblems } from '../../src/platform/json-schema-check';
import { chatModelEnv, startChatModel, type ChatCall, type ChatModelFixture } from '../support/chat-model';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, registerAgent, registerService, startServer, type TestServer } from '../support/server';

let m: ChatModelFixture;
let withModel: TestServer;
let withoutModel: TestServer;
let provider: Provider;
let key: string;
let keyWithout: string;

const MODEL_ONLY = [
  'translate',
  'document-draft',
  'content-rewrite',
  'research-synthesize',
  'research-compare',
  'arabic-cultural',
  'arabic-poetry',
  'agent-vibe',
];

beforeAll(async () => {
  assertTestCaTrusted();
  m = await startChatModel();
  m.respond(modelAnswer);
  provider = await startProvider('seller');
  withModel = await startServer({
    env: chatModelEnv(m, { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '1500', LLM_TIMEOUT_MS: '4000' }),
  });
  withoutModel = await startServer({ env: { RATE_LIMIT_DISABLED: '1', PROVIDER_TIMEOUT_MS: '1500' } });
  key = (await registerAgent(withModel)).key;
  keyWithout = (await registerAgent(withoutModel)).key;
}, 120_000);
afterAll(async () => {
  await Promise.all([withModel?.close(), withoutModel?.close()]);
  await Promise.all([m?.close(), provider?.close()]);
});

const execute = (server: TestServer, k: string, capability: string, input: unknown, extra: Record<string, unknown> = {}) =>
  api(server)('POST', '/execute', { key: k, body: { capability, input, ...extra } });

/** The output's problems against the capability's documented output schema (none when it holds). */
const outputProblems = (slug: string, result: unknown) => schemaProblems(FIRST_PARTY.get(slug)!.outputSchema, result);

/** What strict structured output needs of a schema, everywhere in it: closed objects, every property required, no keyword it refuses. */
function strictProblems(schema: any, at = '$'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const problems: string[] = [];
  for (const k of ['minLength', 'maxLength', 'uniqueItems', 'maxProperties', 'oneOf', 'format', 'pattern']) if (k in schema) problems.push(`${at} uses ${k}`);
  if (schema.properties) {
    if (schema.additionalProperties !== false) problems.push(`${at} is not closed`);
    for (const p of Object.keys(schema.properties)) if (!schema.required?.includes(p)) problems.push(`${at}.${p} is not required`);
    for (const [p, s] of Object.entries(schema.properties)) problems.push(...strictProblems(s, `${at}.${p}`));
  }
  if (schema.items) problems.push(...strictProblems(schema.items, `${at}[]`));
  return problems;
}

// ---- The stand-in model: answers each capability's request from what the request holds ----------------

const enumOf = (schema: any): string[] => schema.enum;

function modelAnswer(call: ChatCall) {
  const input = call.input;
  const props = call.schema.properties;
  switch (call.name) {
    case 'summarize':
      return { content: { summary: `The council approved the transit budget (${input.text.length} characters read).` } };
    case 'translate':
      return { content: { translation: `Bonjour le monde (${input.target_language})`, source_language: input.source_language ?? 'English' } };
    case 'sentiment':
      return { content: { label: 'negative', score: -0.7, rationale: 'It complains of a late, broken delivery.' } };
    case 'classify': {
      const labels = enumOf(props.scores.items.properties.label);
      return { content: { scores: labels.map((label, i) => ({ label, score: i === labels.length - 1 ? 0.9 : 0.05 * (i + 1) })) } };
    }
    case 'code_review':
      return {
        content: {
          summary: 'One bug: the loop runs one past the end.',
          findings: [
            { severity: 'error', category: 'bug', line: 2, message: 'Off by one: <= reads past the end', suggestion: 'Use < instead of <=' },
            { severity: 'info', category: 'style', line: null, message: 'Consider a for-of loop', suggestion: null },
          ],
        },
      };
    case 'code_explain':
      return {
        content: {
          summary: 'Sums a list.',
          parts: [{ name: 'total', start_line: 1, end_line: 3, explanation: 'Adds each number to an accumulator.' }],
          concepts: ['accumulator'],
        },
      };
    case 'document_draft':
      return { content: { title: 'Team offsite', body: 'Hello team,\n\nThe offsite is on [date].\n\nBest', placeholders: ['[date]'] } };
    case 'content_rewrite':
      return { content: { text: 'We regret the delay.', changes: ['Made it formal'] } };
    case 'research_synthesize': {
      const ids = enumOf(props.findings.items.properties.sources.items);
      return {
        content: {
          answer: 'Both sources agree it rose.',
          findings: [{ claim: 'It rose in 2024', sources: ids }],
          gaps: ['Nothing on 2025'],
          confidence: 'medium',
        },
      };
    }
    case 'research_compare': {
      const names = enumOf(props.criteria.items.properties.assessments.items.properties.item);
      const criteria: string[] = input.criteria ?? ['price'];
      return {
        content: {
          summary: 'A is cheaper; B is faster.',
          criteria: criteria.map((criterion) => ({
            criterion,
            assessments: names.map((item) => ({ item, assessment: `${item} on ${criterion}` })),
            leader: names[0],
          })),
          similarities: ['Both are databases'],
          differences: ['Price'],
          recommendation: input.question ? `${names[0]}, for its price` : null,
        },
      };
    }
    case 'arabic_cultural':
      return {
        content: {
          result: 'The phrase "inshallah" expresses hope and deference to God.',
          notes: [{ topic: 'inshallah', note: 'Not a refusal by itself', sensitivity: 'info' }],
        },
      };
    case 'arabic_poetry':
      if ('verses' in props) {
        const n = props.verses.minItems;
        return {
          content: {
            title: 'البحر',
            verses: Array.from({ length: n }, (_, i) => `بيت ${i + 1}`),
            meter: 'kamil',
            rhyme: 'ر',
            translation: props.translation.type === 'null' ? null : Array.from({ length: n }, (_, i) => `Verse ${i + 1}`),
            notes: 'Kamil suits the sea.',
          },
        };
      }
      return {
        content: {
          meter: 'tawil',
          rhyme: 'ل',
          form: 'qasida',
          themes: ['nostalgia'],
          devices: [{ device: 'atlal', example: 'قفا نبك', explanation: 'Weeping at the ruins' }],
          explanation: 'The poet stops at the ruins.',
          translation: null,
          notes: 'none',
        },
      };
    case 'agent_vibe':
      return {
        content: {
          vibe: 'earnest helper',
          tone: 'plain',
          traits: [{ trait: 'focused', evidence: 'Its services all summarize text' }],
          summary: 'A focused agent.',
        },
      };
    default:
      return { status: 500, error: `no answer for ${call.name}` };
  }
}

// ---- With a model backend ------------------------------------------------------------------------------

interface Case {
  slug: string;
  input: Record<string, unknown>;
  /** What the user message carried to the model, and what the result says. */
  check(result: any, call: ChatCall): void;
}

const CASES: Case[] = [
  {
    slug: 'summarize',
    input: { text: 'The city council approved a new budget. Transit gets more.', maxSentences: 2 },
    check: (r, c) => {
      expect(c.input).toEqual({ text: 'The city council approved a new budget. Transit gets more.' });
      expect(c.system).toMatch(/at most 2 sentences/);
      expect(r).toMatchObject({ summary: 'The council approved the transit budget (58 characters read).', sentence_count: null, extracted: null });
    },
  },
  {
    slug: 'translate',
    input: { text: 'Hello world', target_language: 'French' },
    check: (r, c) => {
      expect(c.input).toMatchObject({ text: 'Hello world', target_language: 'French' });
      expect(r).toEqual(expect.objectContaining({ translation: 'Bonjour le monde (French)', source_language: 'English', target_language: 'French' }));
    },
  },
  {
    slug: 'sentiment',
    input: { text: 'The parcel came late and broken.' },
    check: (r) => expect(r).toMatchObject({ label: 'negative', score: -0.7, rationale: 'It complains of a late, broken delivery.', sentences: null }),
  },
  {
    slug: 'classify',
    input: { text: 'Please refund the double charge', labels: ['shipping', 'technical', 'billing'], descriptions: { billing: 'charges and refunds' } },
    check: (r, c) => {
      expect(enumOf(c.schema.properties.scores.items.properties.label)).toEqual(['shipping', 'technical', 'billing']);
      expect(c.schema.properties.scores).toMatchObject({ minItems: 3, maxItems: 3 });
      expect(c.input.labels).toEqual([
        { label: 'shipping', description: null },
        { label: 'technical', description: null },
        { label: 'billing', description: 'charges and refunds' },
      ]);
      expect(r).toMatchObject({
        label: 'billing',
        chosen: ['billing'],
        scores: [{ label: 'billing', score: 0.9, matched_terms: null }, { label: 'technical' }, { label: 'shipping' }],
      });
    },
  },
  {
    slug: 'code-review',
    input: { source: 'def total(xs):\n    for i in range(len(xs) + 1):\n        pass', language: 'python' },
    check: (r, c) => {
      // The source reaches the model with its line numbers, so findings can cite lines.
      expect(c.input.source).toBe('1| def total(xs):\n2|     for i in range(len(xs) + 1):\n3|         pass');
      expect(r).toMatchObject({ language: 'python', summary: 'One bug: the loop runs one past the end.', total: 2, counts: { error: 1, warning: 0, info: 1 } });
      expect(r.findings[0]).toEqual({
        source: 'model',
        severity: 'error',
        rule: 'bug',
        line: 2,
        column: null,
        message: 'Off by one: <= reads past the end',
        suggestion: 'Use < instead of <=',
      });
    },
  },
  {
    slug: 'code-explain',
    input: { source: 'function total(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}', language: 'javascript', filename: 'total.js' },
    check: (r, c) => {
      expect(c.input).toMatchObject({ language: 'javascript', filename: 'total.js' });
      expect(r).toMatchObject({
        lines: 3,
        summary: 'Sums a list.',
        outline: null,
        explanation: { parts: [{ name: 'total', start_line: 1, end_line: 3 }], concepts: ['accumulator'] },
      });
    },
  },
  {
    slug: 'document-draft',
    input: { kind: 'email', brief: 'Invite the team to the offsite', maxWords: 100 },
    check: (r, c) => {
      expect(c.system).toMatch(/at most about 100 words/);
      expect(c.body.max_tokens).toBe(456);
      expect(r).toMatchObject({ title: 'Team offsite', format: 'markdown', word_count: 8, placeholders: ['[date]'] });
    },
  },
  {
    slug: 'content-rewrite',
    input: { text: 'sorry its late lol', style: 'formal' },
    check: (r, c) => {
      expect(c.system).toMatch(/formal style/);
      expect(r).toMatchObject({ text: 'We regret the delay.', style: 'formal', changes: ['Made it formal'] });
    },
  },
  {
    slug: 'research-synthesize',
    input: {
      question: 'Did it rise?',
      sources: [
        { content: 'It rose in 2024.', url: 'https://a.example/report' },
        { id: 'census', title: 'Census', content: 'Up 3% in 2024.' },
      ],
    },
    check: (r, c) => {
      expect(enumOf(c.schema.properties.findings.items.properties.sources.items)).toEqual(['S1', 'census']);
      expect(r).toMatchObject({
        findings: [{ claim: 'It rose in 2024', sources: ['S1', 'census'] }],
        confidence: 'medium',
        sources: [
          { id: 'S1', title: null, url: 'https://a.example/report' },
          { id: 'census', title: 'Census', url: null },
        ],
      });
    },
  },
  {
    slug: 'research-compare',
    input: {
      items: [
        { name: 'A', content: 'cheap, slow' },
        { name: 'B', content: 'fast, dear' },
      ],
      criteria: ['price', 'speed'],
      question: 'Which for a startup?',
    },
    check: (r, c) => {
      expect(c.schema.properties.criteria).toMatchObject({ minItems: 2, maxItems: 2 });
      expect(r.criteria.map((x: any) => x.criterion)).toEqual(['price', 'speed']);
      expect(r.recommendation).toBe('A, for its price');
    },
  },
  {
    slug: 'arabic-cultural',
    input: { text: 'See you tomorrow, inshallah', region: 'gulf' },
    check: (r, c) => {
      expect(c.system).toMatch(/the Gulf states/);
      expect(r).toMatchObject({ task: 'explain', region: 'gulf', notes: [{ topic: 'inshallah', sensitivity: 'info' }] });
    },
  },
  {
    slug: 'arabic-poetry',
    input: { theme: 'the sea', meter: 'kamil', verses: 4, translate: true },
    check: (r, c) => {
      expect(c.schema.properties.verses).toMatchObject({ minItems: 4, maxItems: 4 });
      expect(r).toMatchObject({
        task: 'compose',
        poem: { title: 'البحر', meter: 'kamil', rhyme: 'ر' },
        analysis: null,
        translation: ['Verse 1', 'Verse 2', 'Verse 3', 'Verse 4'],
      });
      expect(r.poem.verses).toHaveLength(4);
    },
  },
  {
    slug: 'agent-vibe',
    input: { text: 'I summarize. I summarize well. Ask me.' },
    check: (r, c) => {
      expect(c.input).toEqual({ material: { text: 'I summarize. I summarize well. Ask me.' } });
      expect(r).toMatchObject({ subject: { kind: 'text', agent_id: null, name: null }, vibe: 'earnest helper', traits: [{ trait: 'focused' }] });
    },
  },
];

describe('with a model backend', () => {
  it.each(CASES.map((c) => [c.slug, c] as const))(
    '%s: the model answers through a strict JSON Schema, held to the output schema, its usage recorded',
    async (slug, c) => {
      const before = m.calls.length;
      const res = await execute(withModel, key, slug, c.input);
      expect(m.refused).toEqual([]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', provider: { service_key: 'marketplace' } });
      expect(m.calls.length).toBe(before + 1);
      const sent = m.calls[before];
      expect(sent.headers.authorization).toBe(`Bearer ${m.apiKey}`);
      expect(sent.body).toMatchObject({ model: m.model, stream: false, response_format: { type: 'json_schema', json_schema: { strict: true } } });
      expect(strictProblems(sent.schema)).toEqual([]);
      expect(sent.system).toMatch(/never as instructions to you/);
      const result = res.body.result;
      expect(result).toMatchObject({ method: 'model', model: m.model });
      expect(outputProblems(slug, result)).toEqual([]);
      c.check(result, sent);
      const usage = res.body.attempts[0].usage;
      expect(usage).toEqual({ model: m.model, prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    },
  );

  it('asks once more when the answer does not follow the schema, telling the model why, and counts both calls’ tokens', async () => {
    const before = m.calls.length;
    m.script({ content: 'Sure! Here is the summary: it is good.' }, { content: { summary: 'A good text.' } });
    const res = await execute(withModel, key, 'summarize', { text: 'A good text. It is good.' });
    expect(res.body).toMatchObject({ status: 'success', result: { summary: 'A good text.' } });
    const [first, second] = m.calls.slice(before);
    expect(second.body.messages).toHaveLength(4);
    expect(second.body.messages[2]).toEqual({ role: 'assistant', content: 'Sure! Here is the summary: it is good.' });
    expect(second.body.messages[3].content).toMatch(/does not follow the JSON Schema: the answer is not JSON/);
    const tokens = (c: ChatCall) => c.body.messages.reduce((n: number, x: any) => n + x.content.split(/\s+/).filter(Boolean).length, 0);
    expect(res.body.attempts[0].usage.prompt_tokens).toBe(tokens(first) + tokens(second));
  });

  it('fails the attempt, clearly, when the answer misses the schema twice; nothing made up is answered', async () => {
    const before = m.calls.length;
    m.script({ content: { summary: 42 } }, { content: { text: 'wrong field' } });
    const res = await execute(withModel, key, 'summarize', { text: 'Anything at all.' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'error',
      result: null,
      attempts: [{ service_key: 'marketplace', outcome: 'failure', reason: 'service_unavailable' }],
    });
    expect(res.body.error).toMatch(/did not follow the output schema twice \(summary must be a string\)/);
    expect(m.calls.length).toBe(before + 2);
    // What the two calls spent is recorded on the failed attempt, as a success's is.
    const tokens = (c: ChatCall) => c.body.messages.reduce((n: number, x: any) => n + x.content.split(/\s+/).filter(Boolean).length, 0);
    const [first, second] = m.calls.slice(before);
    expect(res.body.attempts[0].usage).toEqual({
      model: m.model,
      prompt_tokens: tokens(first) + tokens(second),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
    expect(res.body.attempts[0].usage.completion_tokens).toBeGreaterThan(0);
    const recorded = await api(withModel)('GET', '/agents/me/executions', { key });
    expect(recorded.status).toBe(200);
    const attempt = await withModel.app.services.db.executionAttempt.findFirstOrThrow({ where: { executionId: res.body.execution_id } });
    expect(attempt.usage).toEqual(res.body.attempts[0].usage);
  });

  it('holds the model to rules the schema cannot state: a finding must cite a line the source has', async () => {
    m.script(
      { content: { summary: 'x', findings: [{ severity: 'error', category: 'bug', line: 99, message: 'made up', suggestion: null }] } },
      { content: { summary: 'Fine.', findings: [] } },
    );
    const res = await execute(withModel, key, 'code-review', { source: 'x = 1\n', language: 'python' });
    expect(res.body).toMatchObject({ status: 'success', result: { summary: 'Fine.', findings: [], total: 0 } });
    expect(m.calls.at(-1)!.body.messages[3].content).toMatch(/cites line 99, but the source has 1 line\b/);
  });

  it.each([
    ['an HTTP error', { status: 500, error: 'CUDA out of memory' }, /answered HTTP 500/, false],
    ['an answer cut at its token budget', { content: '{"summary": "It', finishReason: 'length' }, /cut at its budget of \d+ tokens/, true],
    ['a refusal', { content: null, refusal: 'I cannot help with that.' }, /declined to answer: I cannot help with that/, true],
  ])('reports %s as the attempt’s failure without asking again, with the tokens the backend reported', async (_what, answer, message, spent) => {
    const before = m.calls.length;
    m.script(answer);
    const res = await execute(withModel, key, 'summarize', { text: 'Some text.' });
    expect(res.body).toMatchObject({ status: 'error', attempts: [{ outcome: 'failure' }] });
    expect(res.body.attempts[0].usage).toEqual(
      spent ? { model: m.model, prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) } : null,
    );
    expect(res.body.error).toMatch(message);
    // The backend's own message is the operator's (logged), not the caller's.
    expect(res.body.error).not.toMatch(/CUDA/);
    expect(m.calls.length).toBe(before + 1);
  });

  it('gives up on a backend that does not answer within LLM_TIMEOUT_MS', async () => {
    m.script({ content: { summary: 'too late' }, delayMs: 6_000 });
    const started = Date.now();
    const res = await execute(withModel, key, 'summarize', { text: 'Some text.' });
    expect(Date.now() - started).toBeLessThan(5_500);
    expect(res.body).toMatchObject({ status: 'error', attempts: [{ outcome: 'failure' }] });
    expect(res.body.attempts[0].reason === 'timeout' || /no complete answer within \d+ ms/.test(res.body.error)).toBe(true);
  }, 15_000);

  it('records what the first call spent when the second runs out of time', async () => {
    m.script({ content: 'not JSON at all' }, { content: { summary: 'too late' }, delayMs: 6_000 }); // four tokens, as the fixture counts them
    const res = await execute(withModel, key, 'summarize', { text: 'Some text.' });
    expect(res.body).toMatchObject({ status: 'error', attempts: [{ outcome: 'failure' }] });
    expect(res.body.attempts[0].usage).toEqual({ model: m.model, prompt_tokens: expect.any(Number), completion_tokens: 4, total_tokens: expect.any(Number) });
  }, 15_000);

  it('is the last resort: a registered seller is called first, and the model only when the seller fails', async () => {
    const seller = await registerAgent(withModel);
    const svc = await registerService(withModel, seller.key, { endpoint: provider.url, capabilities: ['sentiment'], cost_per_call: 0, pricing_model: 'free' });
    provider.behave({ json: { label: 'positive', from: 'seller' } });
    const before = m.calls.length;
    const served = await execute(withModel, key, 'sentiment', { text: 'Lovely.' });
    expect(served.body).toMatchObject({ status: 'success', result: { from: 'seller' }, provider: { service_key: svc.service_key } });
    expect(m.calls.length).toBe(before);
    provider.behave({ status: 500 });
    const fellBack = await execute(withModel, key, 'sentiment', { text: 'Lovely.' });
    expect(fellBack.body).toMatchObject({ status: 'success', result: { method: 'model' }, provider: { service_key: 'marketplace' } });
    expect(fellBack.body.attempts.map((a: any) => [a.service_key, a.outcome])).toEqual([
      [svc.service_key, 'failure'],
      ['marketplace', 'success'],
    ]);
    expect(m.calls.length).toBe(before + 1);
    provider.setDefault({ status: 500 });
  });

  it('reads an agent’s public presence for agent-vibe: its services, not another agent’s private description', async () => {
    const subject = await registerAgent(withModel, { description: 'PRIVATE-NOTE do not show' });
    await registerService(withModel, subject.key, { description: 'Summarizes legal contracts into plain English', capabilities: ['contract-summary'] });
    const res = await execute(withModel, key, 'agent-vibe', { agent_id: subject.agentId });
    expect(res.body).toMatchObject({ status: 'success', result: { subject: { kind: 'agent', agent_id: subject.agentId, name: subject.name } } });
    const material = m.calls.at(-1)!.input.material;
    expect(material).toMatchObject({
      name: subject.name,
      tier: 'newcomer',
      services: [{ description: 'Summarizes legal contracts into plain English', capabilities: ['contract-summary'] }],
    });
    expect(JSON.stringify(material)).not.toMatch(/PRIVATE-NOTE/);
    // Its own description is the caller's to have read.
    await execute(withModel, subject.key, 'agent-vibe', { agentId: subject.agentId });
    expect(m.calls.at(-1)!.input.material.description).toBe('PRIVATE-NOTE do not show');
  });

  it('answers 400 naming input.<field> for input outside the schema, before the model is asked', async () => {
    const before = m.calls.length;
    const cases: [string, unknown, string][] = [
      ['summarize', {}, 'input.text'],
      ['summarize', { text: 'x', max_sentences: 0 }, 'input.max_sentences'],
      ['translate', { text: 'Hello' }, 'input.target_language'],
      ['summarize', { text: 'x'.repeat(100_001) }, 'input.text'],
      ['classify', { text: 'x', labels: ['only'] }, 'input.labels'],
      ['code-review', { source: 'x', language: 'cobol' }, 'input.language'],
      ['research-synthesize', { question: 'q', sources: [] }, 'input.sources'],
      ['research-compare', { items: [{ name: 'A', content: 'a' }, { name: 'B' }] }, 'input.items.1.content'],
      ['document-draft', { kind: 'novel', brief: 'x' }, 'input.kind'],
      ['agent-vibe', { agent_id: 'not-a-uuid' }, 'input.agent_id'],
      ['content-rewrite', { text: 'x', colour: 'blue' }, 'input.colour'],
    ];
    for (const [capability, input, path] of cases) {
      const res = await execute(withModel, key, capability, input);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain(path);
    }
    expect(m.calls.length).toBe(before);
  });
});

// ---- Without a model backend ---------------------------------------------------------------------------

describe('without a model backend', () => {
  const run = (capability: string, input: unknown) => execute(withoutModel, keyWithout, capability, input);

  async function library(slug: string, input: unknown) {
    const res = await run(slug, input);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', provider: { service_key: 'marketplace' }, result: { method: 'library', model: null } });
    expect(outputProblems(slug, res.body.result)).toEqual([]);
    expect(res.body.attempts[0].usage).toBeNull();
    return res.body.result;
  }

  // The first call starts the library's thread, which loads wink-nlp, TypeScript and ESLint.
  it('sentiment: reads an English sentiment lexicon sentence by sentence', async () => {
    const r = await library('sentiment', { text: 'I love this phone. The battery is terrible. It is black.' });
    expect(r.sentences.map((s: any) => s.label)).toEqual(['positive', 'negative', 'neutral']);
    expect(r.sentence_count).toBe(3);
    expect(r.rationale).toBeNull();
    expect(r.score).toBeCloseTo(r.sentences.reduce((n: number, s: any) => n + s.score, 0) / 3, 3);
    const happy = await library('sentiment', { text: 'What a wonderful, delightful day. Thank you so much!' });
    expect(happy).toMatchObject({ label: 'positive' });
    expect(happy.score).toBeGreaterThan(0);
  }, 90_000);

  it('classify: lexical similarity to the labels and their descriptions, with the terms that matched', async () => {
    const labels = ['billing', 'technical', 'shipping'];
    const descriptions = {
      billing: 'invoices, charges, refunds and payments',
      technical: 'bugs, errors, crashes, the app not working',
      shipping: 'delivery, tracking, parcels and couriers',
    };
    const r = await library('classify', { text: 'I was charged twice on my last invoice; please refund one of the charges.', labels, descriptions });
    expect(r).toMatchObject({ label: 'billing', chosen: ['billing'] });
    expect(r.scores[0]).toMatchObject({ label: 'billing' });
    expect(r.scores[0].matched_terms).toEqual(expect.arrayContaining(['invoic', 'charg', 'refund']));
    expect(r.scores.slice(1).map((s: any) => s.score)).toEqual([0, 0]);
    const multi = await library('classify', { text: 'The app crashed while tracking my parcel delivery.', labels, descriptions, multi_label: true });
    expect([...multi.chosen].sort()).toEqual(['shipping', 'technical']);
    // No word in common with any label: no evidence, so no label.
    const none = await library('classify', { text: 'Lorem ipsum dolor sit amet.', labels, descriptions });
    expect(none).toMatchObject({ label: null, chosen: [] });
  });

  it('summarize: the sentences closest to the whole text, in its order', async () => {
    const text = [
      'The city council approved the new transit budget on Tuesday.',
      'The transit budget raises bus and train funding by a fifth.',
      'Critics said the budget ignores road repairs.',
      'Supporters said more transit funding cuts traffic and emissions.',
      'The mayor will sign the transit budget next week.',
      'It rained in the afternoon.',
    ].join(' ');
    const r = await library('summarize', { text, max_sentences: 2 });
    expect(r.sentence_count).toBe(6);
    expect(r.extracted).toHaveLength(2);
    expect(r.extracted[0].index).toBeLessThan(r.extracted[1].index);
    expect(r.extracted.map((e: any) => e.index)).not.toContain(5);
    expect(r.summary).toBe(r.extracted.map((e: any) => e.text).join(' '));
  });

  it('code-review: the TypeScript compiler’s diagnostics, lint-like ones as warnings', async () => {
    const source = [
      'import { thing } from "somewhere";',
      'export function add(a: number, b: number): number {',
      '  const unused = 1;',
      '  return a + b + thing;',
      '}',
      'export const n: number = "one";',
      '',
    ].join('\n');
    const r = await library('code-review', { source, language: 'typescript' });
    expect(r.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'compiler', severity: 'error', rule: 'TS2322', line: 6 }),
        expect.objectContaining({ source: 'compiler', severity: 'warning', rule: 'TS6133', line: 3 }),
      ]),
    );
    // An import it cannot resolve is not a finding: the source is checked alone.
    expect(r.findings.map((f: any) => f.rule)).not.toContain('TS2307');
    expect(r.counts).toEqual({ error: 1, warning: 1, info: 0 });
    expect(r.checks[0]).toMatch(/^typescript \d/);
    expect(r.summary).toMatch(/1 error, 1 warning/);
  });

  it('code-review: ESLint’s recommended rules on JavaScript, with the compiler’s checks', async () => {
    const source = [
      'function f(x) {',
      '  if (x == NaN) return 1;',
      '  return 2;',
      '  console.log("never");',
      '}',
      'const o = { a: 1, a: 2 };',
      'module.exports = { f, o };',
      '',
    ].join('\n');
    const r = await library('code-review', { source, language: 'javascript' });
    const rules = r.findings.map((f: any) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['use-isnan', 'no-unreachable', 'no-dupe-keys']));
    expect(r.findings.find((f: any) => f.rule === 'no-unreachable')).toMatchObject({ source: 'lint', severity: 'warning', line: 4 });
    expect(r.checks).toEqual([expect.stringMatching(/^typescript .*checkJs/), expect.stringMatching(/^eslint \d.* recommended$/)]);
  });

  it('code-explain: an outline from the syntax tree', async () => {
    const source = [
      "import fs from 'node:fs';",
      "import { join, resolve as r } from 'node:path';",
      'export interface Options { dir: string }',
      'export class Store {',
      '  private items = new Map<string, string>();',
      '  constructor(readonly opts: Options) {}',
      '  get(key: string): string | undefined {',
      '    return this.items.get(key);',
      '  }',
      '}',
      'const helper = (a: number) => a * 2;',
      'export default helper;',
      '',
    ].join('\n');
    const r = await library('code-explain', { source, language: 'typescript' });
    expect(r).toMatchObject({ lines: 12, explanation: null });
    expect(r.outline.imports).toEqual([
      { module: 'node:fs', names: ['default as fs'], line: 1 },
      { module: 'node:path', names: ['join', 'resolve as r'], line: 2 },
    ]);
    expect(r.outline.exports.map((e: any) => e.name)).toEqual(['Options', 'Store', 'default']);
    expect(r.outline.declarations.map((d: any) => [d.kind, d.name, d.parent, d.line, d.exported])).toEqual([
      ['interface', 'Options', null, 3, true],
      ['class', 'Store', null, 4, true],
      ['property', 'items', 'Store', 5, false],
      ['constructor', 'constructor', 'Store', 6, false],
      ['method', 'get', 'Store', 7, false],
      ['function', 'helper', null, 11, true],
    ]);
    expect(r.outline.declarations.find((d: any) => d.name === 'get').signature).toBe('(key: string): string | undefined');
    expect(r.summary).toBe(
      'A TypeScript module of 12 lines, declaring 1 function, 1 class, 1 interface at the top level, importing 2 modules and exporting 3 names.',
    );
  });

  it('code-review and code-explain read only TypeScript and JavaScript without a backend', async () => {
    for (const slug of ['code-review', 'code-explain']) {
      const res = await run(slug, { source: 'print("hi")', language: 'python' });
      if (res.status === 400) expect(errorPaths(res)).toContain('input.language');
      else expect(res.body).toMatchObject({ status: 'error', attempts: [{ reason: 'invalid_input' }] });
      expect(JSON.stringify(res.body)).toMatch(/without a model backend \(LLM_BASE_URL\) the marketplace reads typescript, tsx, javascript, jsx only/);
    }
  });

  it.each(MODEL_ONLY)('%s is not offered: 503 capability_unavailable naming LLM_BASE_URL', async (slug) => {
    const res = await run(slug, { text: 'x' });
    expectProblem(res, 503, 'capability_unavailable');
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body.detail).toMatch(/LLM_BASE_URL and LLM_MODEL/);
  });

  it('answers 400 naming input.<field> for input outside the schema', async () => {
    const res = await run('sentiment', { text: '' });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['input.text']);
    const big = await run('summarize', { text: 'a. '.repeat(40_000) });
    expect(errorPaths(big)).toEqual(['input.text']);
  });
});
