// summarize, translate, sentiment and classify: reading a text.
import { runLibrary } from '../nlp-library';
import { askModel } from '../nlp-model';
import { int, list, nullable, num, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { TEXT_MAX, REWRITE_MAX, needsModel, METHOD, MODEL_METHOD, MODEL_OR_NULL, MODEL, strings, LANGUAGE, fromModel, checked } from './shared';

export const summarize: FirstPartyCapability = {
  slug: 'summarize',
  kind: 'generic',
  summary: 'A summary of a text: written by the model, or without a backend extracted from its most central sentences',
  inputSchema: obj(
    {
      text: str(`The text (at most ${TEXT_MAX} characters)`, { minLength: 1, maxLength: TEXT_MAX }),
      max_sentences: int('At most this many sentences in the summary (default 3)', { minimum: 1, maximum: 20 }),
    },
    ['text'],
  ),
  outputSchema: obj(
    {
      method: METHOD,
      model: MODEL_OR_NULL,
      summary: str('The summary'),
      sentence_count: nullable(int('Sentences in the text (library)', { minimum: 0 })),
      extracted: nullable(
        list(
          obj(
            {
              index: int('The sentence’s place in the text, from 0', { minimum: 0 }),
              text: str('The sentence'),
              score: num('Its closeness to the whole text’s terms, 0–1', { minimum: 0, maximum: 1 }),
            },
            ['index', 'text', 'score'],
          ),
          'The sentences chosen, in the text’s order (library); null for a written summary',
        ),
      ),
    },
    ['method', 'model', 'summary', 'sentence_count', 'extracted'],
  ),
  run: async (ctx, _me, input, signal) => {
    const text = String(input.text);
    const maxSentences = (input.max_sentences as number | undefined) ?? 3;
    if (!ctx.services.chatModel) {
      const r = await runLibrary('summarize', { text, maxSentences }, signal);
      return { output: { method: 'library', model: null, summary: r.summary, sentence_count: r.sentence_count, extracted: r.extracted } };
    }
    const { answer, model, usage } = await askModel<{ summary: string }>(
      ctx,
      {
        name: 'summarize',
        instructions: `Summarize the text in at most ${maxSentences} sentence${maxSentences === 1 ? '' : 's'}, in the text's own language. Keep its facts and its proportions; add nothing it does not say.`,
        input: { text },
        schema: obj({ summary: str('The summary') }, ['summary']),
        maxTokens: 200 + maxSentences * 80,
        temperature: 0.2,
      },
      signal,
    );
    return fromModel(model, usage, { summary: answer.summary, sentence_count: null, extracted: null });
  },
};

// ---- translate -----------------------------------------------------------------------------------------

export const translate: FirstPartyCapability = {
  slug: 'translate',
  kind: 'generic',
  ...needsModel,
  summary: 'Translates a text into another language (model)',
  inputSchema: obj(
    {
      text: str(`The text (at most ${REWRITE_MAX} characters)`, { minLength: 1, maxLength: REWRITE_MAX }),
      target_language: LANGUAGE('The language to translate into: a name or a BCP 47 tag (French, fr, pt-BR)'),
      source_language: LANGUAGE('The text’s language, when known (default: the model tells)'),
    },
    ['text', 'target_language'],
  ),
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      translation: str('The translation'),
      source_language: str('The text’s language, as given or as the model read it'),
      target_language: str('The language translated into, as asked'),
    },
    ['method', 'model', 'translation', 'source_language', 'target_language'],
  ),
  run: async (ctx, _me, input, signal) => {
    const target = String(input.target_language);
    const { answer, model, usage } = await askModel<{ translation: string; source_language: string }>(
      ctx,
      {
        name: 'translate',
        instructions: `Translate the text into ${target}${input.source_language ? ` from ${String(input.source_language)}` : ''}. Keep its meaning, register, formatting and line breaks; translate everything and add nothing. Name the text's language in source_language.`,
        input: { text: input.text, target_language: target, source_language: input.source_language ?? null },
        schema: obj({ translation: str('The translation'), source_language: str('The text’s language') }, ['translation', 'source_language']),
        maxTokens: 8_192,
        temperature: 0.2,
      },
      signal,
    );
    return fromModel(model, usage, { translation: answer.translation, source_language: answer.source_language, target_language: target });
  },
};

// ---- sentiment -----------------------------------------------------------------------------------------

const LABELS = ['positive', 'negative', 'neutral'];

export const sentiment: FirstPartyCapability = {
  slug: 'sentiment',
  kind: 'generic',
  summary:
    'A text’s sentiment, positive, negative or neutral, with a score from -1 to 1: read by the model, or without a backend from an English sentiment lexicon, sentence by sentence',
  inputSchema: obj({ text: str(`The text (at most ${TEXT_MAX} characters)`, { minLength: 1, maxLength: TEXT_MAX }) }, ['text']),
  outputSchema: obj(
    {
      method: METHOD,
      model: MODEL_OR_NULL,
      label: str('The overall sentiment', { enum: LABELS }),
      score: num('From -1 (negative) to 1 (positive)', { minimum: -1, maximum: 1 }),
      rationale: nullable(str('Why, in a sentence (model)')),
      sentence_count: nullable(int('Sentences in the text (library)', { minimum: 0 })),
      sentences: nullable(
        list(
          obj(
            {
              index: int('From 0', { minimum: 0 }),
              text: str('The sentence'),
              score: num('Its score', { minimum: -1, maximum: 1 }),
              label: str('Its sentiment', { enum: LABELS }),
            },
            ['index', 'text', 'score', 'label'],
          ),
          'The first 100 sentences and their scores (library); the text’s score is their mean',
        ),
      ),
    },
    ['method', 'model', 'label', 'score', 'rationale', 'sentence_count', 'sentences'],
  ),
  run: async (ctx, _me, input, signal) => {
    const text = String(input.text);
    if (!ctx.services.chatModel) {
      const r = await runLibrary('sentiment', { text }, signal);
      return {
        output: { method: 'library', model: null, label: r.label, score: r.score, rationale: null, sentence_count: r.sentence_count, sentences: r.sentences },
      };
    }
    const { answer, model, usage } = await askModel<{ label: string; score: number; rationale: string }>(
      ctx,
      {
        name: 'sentiment',
        instructions:
          'Judge the sentiment the text expresses overall: positive, negative or neutral (neutral also for mixed or no sentiment), with a score from -1 (most negative) to 1 (most positive), 0 for none. Give the reason in one sentence.',
        input: { text },
        schema: obj(
          {
            label: str('The overall sentiment', { enum: LABELS }),
            score: num('From -1 to 1', { minimum: -1, maximum: 1 }),
            rationale: str('Why, in one sentence'),
          },
          ['label', 'score', 'rationale'],
        ),
        maxTokens: 300,
        temperature: 0,
      },
      signal,
    );
    return fromModel(model, usage, { label: answer.label, score: answer.score, rationale: answer.rationale, sentence_count: null, sentences: null });
  },
};

// ---- classify ------------------------------------------------------------------------------------------

export const classify: FirstPartyCapability = {
  slug: 'classify',
  kind: 'generic',
  summary:
    'Classifies a text against labels the caller gives: by the model, or without a backend by lexical similarity (BM25) to each label’s name and description',
  inputSchema: obj(
    {
      text: str(`The text (at most ${TEXT_MAX} characters)`, { minLength: 1, maxLength: TEXT_MAX }),
      labels: list(str('A label', { minLength: 1, maxLength: 100 }), 'The labels to choose from (2–50, each once)', {
        minItems: 2,
        maxItems: 50,
        uniqueItems: true,
      }),
      descriptions: {
        type: 'object',
        description:
          'What a label means, by label (at most 1,000 characters each). The library matches the words of a label and of its description, so describe labels in the words texts use',
        additionalProperties: str('The label’s meaning', { minLength: 1, maxLength: 1_000 }),
        maxProperties: 50,
      },
      multi_label: { type: 'boolean', description: 'Choose every label that applies, not only the best (default false)' },
    },
    ['text', 'labels'],
  ),
  outputSchema: obj(
    {
      method: METHOD,
      model: MODEL_OR_NULL,
      label: nullable(str('The best label; null when the library found no word in common with any label')),
      chosen: strings('The labels chosen: the best one, or with multi_label every one that applies'),
      scores: list(
        obj(
          {
            label: str('A label'),
            score: num('The model’s confidence, or the library’s cosine similarity, 0–1', { minimum: 0, maximum: 1 }),
            matched_terms: nullable(strings('Word stems the text shares with the label and its description (library)')),
          },
          ['label', 'score', 'matched_terms'],
        ),
        'Every label, best first',
      ),
    },
    ['method', 'model', 'label', 'chosen', 'scores'],
  ),
  run: async (ctx, _me, input, signal) => {
    const text = String(input.text);
    const names = input.labels as string[];
    const descriptions = (input.descriptions ?? {}) as Record<string, string>;
    checked(
      Object.keys(descriptions)
        .filter((k) => !names.includes(k))
        .map((k) => ({ path: `descriptions.${k}`, message: 'is not one of labels' })),
    );
    const multiLabel = input.multi_label === true;
    if (!ctx.services.chatModel) {
      const r = await runLibrary('classify', { text, labels: names.map((name) => ({ name, description: descriptions[name] })), multiLabel }, signal);
      return { output: { method: 'library', model: null, ...r } };
    }
    const { answer, model, usage } = await askModel<{ scores: { label: string; score: number }[] }>(
      ctx,
      {
        name: 'classify',
        instructions: `Score how well each label fits the text, from 0 (not at all) to 1 (certainly), every label once.${multiLabel ? ' Several labels may fit.' : ' Exactly one label is meant to fit best.'} A label's description, when given, says what it means.`,
        input: { text, labels: names.map((name) => ({ label: name, description: descriptions[name] ?? null })) },
        schema: obj(
          {
            scores: list(
              obj({ label: str('A label', { enum: names }), score: num('0–1', { minimum: 0, maximum: 1 }) }, ['label', 'score']),
              'Every label once',
              { minItems: names.length, maxItems: names.length },
            ),
          },
          ['scores'],
        ),
        maxTokens: 100 + 40 * names.length,
        temperature: 0,
        check: (a) => {
          const seen = new Set(a.scores.map((s) => s.label));
          return names.filter((n) => !seen.has(n)).map((n) => `scores has no entry for the label ${JSON.stringify(n)}`);
        },
      },
      signal,
    );
    const ranked = [...answer.scores].sort((a, b) => b.score - a.score).map((s) => ({ label: s.label, score: s.score, matched_terms: null }));
    // The model's best label is its choice; with multi_label, so is every label it gives at least even odds.
    const chosen = multiLabel ? ranked.filter((s) => s.score >= 0.5).map((s) => s.label) : [ranked[0].label];
    return fromModel(model, usage, { label: ranked[0].label, chosen, scores: ranked });
  },
};
