// research-synthesize and research-compare: reading the sources a caller gives.
import { ValidationFailed } from '../../../platform/errors';
import { askModel } from '../nlp-model';
import { int, list, nullable, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { SOURCE_MAX, SOURCES_TOTAL_MAX, needsModel, MODEL_METHOD, MODEL, strings, nullableEnum, fromModel, checked } from './shared';

/** The sources' total size (JSON Schema bounds each, not their sum). */
function totalWithin(items: { content: string }[], path: string): void {
  const total = items.reduce((n, s) => n + s.content.length, 0);
  if (total > SOURCES_TOTAL_MAX)
    throw new ValidationFailed([{ path, message: `must hold at most ${SOURCES_TOTAL_MAX} characters of content in all (${total} given)` }]);
}

export const researchSynthesize: FirstPartyCapability = {
  slug: 'research-synthesize',
  kind: 'generic',
  ...needsModel,
  summary:
    'Answers a question from the sources given (texts, not fetched), each claim citing the sources that support it, and says what they leave open (model)',
  inputSchema: obj(
    {
      question: str('The question', { minLength: 1, maxLength: 2_000 }),
      sources: list(
        obj(
          {
            id: str('How findings cite it (default S1, S2, … by position)', { minLength: 1, maxLength: 64 }),
            title: str('Its title', { minLength: 1, maxLength: 500 }),
            url: str('Where it is from (not fetched: give its text as content)', { format: 'uri', maxLength: 2_048 }),
            content: str(`Its text (at most ${SOURCE_MAX} characters; ${SOURCES_TOTAL_MAX} for all)`, { minLength: 1, maxLength: SOURCE_MAX }),
          },
          ['content'],
        ),
        'The sources (1–20)',
        { minItems: 1, maxItems: 20 },
      ),
      max_words: int('About this many words at most in the answer (default 400)', { minimum: 50, maximum: 2_000 }),
    },
    ['question', 'sources'],
  ),
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      answer: str('The answer, from the sources'),
      findings: list(
        obj({ claim: str('A claim'), sources: strings('The ids of the sources that support it', { minItems: 1 }) }, ['claim', 'sources']),
        'The answer’s claims and their sources',
      ),
      gaps: strings('What the sources leave open or disagree on'),
      confidence: str('How well the sources answer the question', { enum: ['low', 'medium', 'high'] }),
      sources: list(
        obj({ id: str('Its id'), title: nullable(str('Its title')), url: nullable(str('Where it is from')) }, ['id', 'title', 'url']),
        'The sources, as cited',
      ),
    },
    ['method', 'model', 'answer', 'findings', 'gaps', 'confidence', 'sources'],
  ),
  run: async (ctx, _me, input, signal) => {
    const given = input.sources as { id?: string; title?: string; url?: string; content: string }[];
    totalWithin(given, 'sources');
    const sources = given.map((s, i) => ({ id: s.id ?? `S${i + 1}`, title: s.title ?? null, url: s.url ?? null, content: s.content }));
    const firstWith = new Map<string, number>();
    checked(
      sources.flatMap((s, i) => {
        const first = firstWith.get(s.id);
        if (first === undefined) firstWith.set(s.id, i);
        return first === undefined ? [] : [{ path: `sources.${i}.id`, message: `is ${s.id}, as sources.${first} is: give every source a distinct id` }];
      }),
    );
    const ids = sources.map((s) => s.id);
    const maxWords = (input.max_words as number | undefined) ?? 400;
    type Answer = { answer: string; findings: { claim: string; sources: string[] }[]; gaps: string[]; confidence: string };
    const { answer, model, usage } = await askModel<Answer>(
      ctx,
      {
        name: 'research_synthesize',
        instructions: `Answer the question from the sources alone, in at most about ${maxWords} words. Break the answer into its claims, each citing the ids of the sources that support it. Say what the sources leave open or disagree on (gaps), and how well they answer the question (confidence). If they do not answer it, say so.`,
        input: { question: input.question, sources },
        schema: obj(
          {
            answer: str('The answer'),
            findings: list(
              obj({ claim: str('A claim'), sources: list(str('A source id', { enum: ids }), 'Its sources', { minItems: 1 }) }, ['claim', 'sources']),
              'The claims',
              { maxItems: 30 },
            ),
            gaps: list(str('One'), 'What is left open', { maxItems: 15 }),
            confidence: str('How well the sources answer it', { enum: ['low', 'medium', 'high'] }),
          },
          ['answer', 'findings', 'gaps', 'confidence'],
        ),
        maxTokens: Math.min(8_192, 1_024 + maxWords * 3),
        temperature: 0.2,
      },
      signal,
    );
    return fromModel(model, usage, { ...answer, sources: sources.map(({ id, title, url }) => ({ id, title, url })) });
  },
};

export const researchCompare: FirstPartyCapability = {
  slug: 'research-compare',
  kind: 'generic',
  ...needsModel,
  summary: 'Compares items (products, papers, options) from the texts given, criterion by criterion (model)',
  inputSchema: obj(
    {
      items: list(
        obj(
          {
            name: str('Its name (each distinct)', { minLength: 1, maxLength: 200 }),
            content: str(`What is known of it (at most ${SOURCE_MAX} characters; ${SOURCES_TOTAL_MAX} for all)`, { minLength: 1, maxLength: SOURCE_MAX }),
          },
          ['name', 'content'],
        ),
        'The items (2–10)',
        { minItems: 2, maxItems: 10 },
      ),
      criteria: list(str('A criterion', { minLength: 1, maxLength: 200 }), 'What to compare them on (default: the model chooses)', {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
      }),
      question: str('What the comparison is for', { minLength: 1, maxLength: 2_000 }),
    },
    ['items'],
  ),
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      summary: str('The comparison in a few sentences'),
      criteria: list(
        obj(
          {
            criterion: str('The criterion'),
            assessments: list(obj({ item: str('An item'), assessment: str('How it fares, from its text') }, ['item', 'assessment']), 'Each item on it'),
            leader: nullable(str('The item that does best on it; null for a tie or when the texts do not tell')),
          },
          ['criterion', 'assessments', 'leader'],
        ),
        'Criterion by criterion',
      ),
      similarities: strings('What the items share'),
      differences: strings('Where they differ most'),
      recommendation: nullable(str('Which fits the question, and why; null without a question or when the texts do not tell')),
    },
    ['method', 'model', 'summary', 'criteria', 'similarities', 'differences', 'recommendation'],
  ),
  run: async (ctx, _me, input, signal) => {
    const items = input.items as { name: string; content: string }[];
    totalWithin(items, 'items');
    const firstWith = new Map<string, number>();
    checked(
      items.flatMap((item, i) => {
        const first = firstWith.get(item.name);
        if (first === undefined) firstWith.set(item.name, i);
        return first === undefined ? [] : [{ path: `items.${i}.name`, message: `repeats the name of items.${first}` }];
      }),
    );
    const names = items.map((i) => i.name);
    const criteria = input.criteria as string[] | undefined;
    const question = (input.question as string | undefined) ?? null;
    type Answer = {
      summary: string;
      criteria: { criterion: string; assessments: { item: string; assessment: string }[]; leader: string | null }[];
      similarities: string[];
      differences: string[];
      recommendation: string | null;
    };
    const { answer, model, usage } = await askModel<Answer>(
      ctx,
      {
        name: 'research_compare',
        instructions: `Compare the items from their texts alone, ${criteria ? 'on each of the criteria given, in order' : 'on the 3 to 8 criteria that matter most for them'}: assess every item on every criterion, and name the leader of each (null for a tie, or when the texts do not tell). Then what they share, where they differ most, a short summary${question ? ', and which fits the question and why (null if the texts do not tell)' : ', and null for recommendation (no question was asked)'}. When an item's text says nothing on a criterion, say so rather than guess.`,
        input: { items, criteria: criteria ?? null, question },
        schema: obj(
          {
            summary: str('A few sentences'),
            criteria: list(
              obj(
                {
                  criterion: criteria ? str('The criterion', { enum: criteria }) : str('The criterion'),
                  assessments: list(
                    obj({ item: str('The item', { enum: names }), assessment: str('How it fares') }, ['item', 'assessment']),
                    'Every item once',
                    { minItems: names.length, maxItems: names.length },
                  ),
                  leader: nullableEnum(names, 'The best on it, or null'),
                },
                ['criterion', 'assessments', 'leader'],
              ),
              'Criterion by criterion',
              criteria ? { minItems: criteria.length, maxItems: criteria.length } : { minItems: 1, maxItems: 8 },
            ),
            similarities: list(str('One'), 'What they share', { maxItems: 10 }),
            differences: list(str('One'), 'Where they differ', { maxItems: 10 }),
            recommendation: nullable(str('Which fits the question and why')),
          },
          ['summary', 'criteria', 'similarities', 'differences', 'recommendation'],
        ),
        maxTokens: 4_096,
        temperature: 0.2,
        check: (a) => [
          ...a.criteria.flatMap((c) =>
            names
              .filter((n) => !c.assessments.some((x) => x.item === n))
              .map((n) => `criterion ${JSON.stringify(c.criterion)} does not assess ${JSON.stringify(n)}`),
          ),
          ...(criteria ?? []).filter((c) => !a.criteria.some((x) => x.criterion === c)).map((c) => `the criterion ${JSON.stringify(c)} is missing`),
        ],
      },
      signal,
    );
    return fromModel(model, usage, { ...answer, recommendation: question ? answer.recommendation : null });
  },
};
