// The nlp capabilities the marketplace serves itself (see types.ts), as its sellers' last resort
// (docs/capabilities/nlp.md). Each is a prompt and a JSON Schema for the model backend's answer
// (nlp-model.ts); five can also be served without a backend by a library that does honestly what it can
// (nlp-library.ts), and say which did (`method`). The other eight are not offered without a backend.
import { NotFound, ValidationFailed, type FieldError } from '../../platform/errors';
import type { Ctx, Services } from '../context';
import { tierOf } from '../reputation/reputation';
import type { LibraryLanguage } from './nlp-code';
import { runLibrary } from './nlp-library';
import { askModel } from './nlp-model';
import { bool, int, list, nullable, num, obj, str } from './schema';
import type { FirstPartyCapability, JsonSchema, ModelUsage, Served } from './types';

// ---- Bounds ------------------------------------------------------------------------------------------

/** A text the library paths read: at most 100 KB, which keeps a task well within the library's time budget. */
const TEXT_MAX = 100_000;
/** A text a model rewrites or translates whole: its answer must fit the answer's token budget. */
const REWRITE_MAX = 20_000;
/** One source or item of the research capabilities, and all of them together. */
const SOURCE_MAX = 50_000;
const SOURCES_TOTAL_MAX = 100_000;
const SOURCE_CODE_MAX = 100_000;

// ---- Shared pieces -----------------------------------------------------------------------------------

const needsModel = {
  available: (s: Services) => !!s.config.llm.baseUrl && !!s.config.llm.model,
  unavailableBecause: 'it needs a model backend: set LLM_BASE_URL and LLM_MODEL',
};

const METHOD = str('What produced the answer: the model backend, or a library when no backend is configured', { enum: ['model', 'library'] });
const MODEL_METHOD = str('What produced the answer: the model backend', { enum: ['model'] });
const MODEL_OR_NULL = nullable(str('The model that answered; null when a library did'));
const MODEL = str('The model that answered');

const strings = (description: string, extra: JsonSchema = {}) => list(str('One item'), description, extra);
const nullableEnum = (values: string[], description: string): JsonSchema => ({ type: ['string', 'null'], enum: [...values, null], description });

/** The served output with the model's name and its usage. */
function fromModel<T extends object>(model: string, usage: ModelUsage | undefined, output: T): Served {
  return { output: { method: 'model', model, ...output }, usage };
}

function checked(errors: FieldError[]): void {
  if (errors.length) throw new ValidationFailed(errors);
}

// ---- summarize -------------------------------------------------------------------------------------------

const summarize: FirstPartyCapability = {
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
            { index: int('The sentence’s place in the text, from 0', { minimum: 0 }), text: str('The sentence'), score: num('Its closeness to the whole text’s terms, 0–1', { minimum: 0, maximum: 1 }) },
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

const LANGUAGE = (description: string) => str(description, { minLength: 2, maxLength: 64 });

const translate: FirstPartyCapability = {
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

const sentiment: FirstPartyCapability = {
  slug: 'sentiment',
  kind: 'generic',
  summary: 'A text’s sentiment, positive, negative or neutral, with a score from -1 to 1: read by the model, or without a backend from an English sentiment lexicon, sentence by sentence',
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
          obj({ index: int('From 0', { minimum: 0 }), text: str('The sentence'), score: num('Its score', { minimum: -1, maximum: 1 }), label: str('Its sentiment', { enum: LABELS }) }, ['index', 'text', 'score', 'label']),
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
      return { output: { method: 'library', model: null, label: r.label, score: r.score, rationale: null, sentence_count: r.sentence_count, sentences: r.sentences } };
    }
    const { answer, model, usage } = await askModel<{ label: string; score: number; rationale: string }>(
      ctx,
      {
        name: 'sentiment',
        instructions:
          'Judge the sentiment the text expresses overall: positive, negative or neutral (neutral also for mixed or no sentiment), with a score from -1 (most negative) to 1 (most positive), 0 for none. Give the reason in one sentence.',
        input: { text },
        schema: obj({ label: str('The overall sentiment', { enum: LABELS }), score: num('From -1 to 1', { minimum: -1, maximum: 1 }), rationale: str('Why, in one sentence') }, ['label', 'score', 'rationale']),
        maxTokens: 300,
        temperature: 0,
      },
      signal,
    );
    return fromModel(model, usage, { label: answer.label, score: answer.score, rationale: answer.rationale, sentence_count: null, sentences: null });
  },
};

// ---- classify ------------------------------------------------------------------------------------------

const classify: FirstPartyCapability = {
  slug: 'classify',
  kind: 'generic',
  summary: 'Classifies a text against labels the caller gives: by the model, or without a backend by lexical similarity (BM25) to each label’s name and description',
  inputSchema: obj(
    {
      text: str(`The text (at most ${TEXT_MAX} characters)`, { minLength: 1, maxLength: TEXT_MAX }),
      labels: list(str('A label', { minLength: 1, maxLength: 100 }), 'The labels to choose from (2–50, each once)', { minItems: 2, maxItems: 50, uniqueItems: true }),
      descriptions: {
        type: 'object',
        description: 'What a label means, by label (at most 1,000 characters each). The library matches the words of a label and of its description, so describe labels in the words texts use',
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
    checked(Object.keys(descriptions).filter((k) => !names.includes(k)).map((k) => ({ path: `descriptions.${k}`, message: 'is not one of labels' })));
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
          { scores: list(obj({ label: str('A label', { enum: names }), score: num('0–1', { minimum: 0, maximum: 1 }) }, ['label', 'score']), 'Every label once', { minItems: names.length, maxItems: names.length }) },
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

// ---- code-review and code-explain ----------------------------------------------------------------------

/** The languages the model reads; the library reads the first four. */
const CODE_LANGUAGES = [
  'typescript', 'tsx', 'javascript', 'jsx', 'python', 'go', 'rust', 'java', 'kotlin', 'swift', 'c', 'cpp', 'csharp', 'fsharp', 'objective-c', 'ruby', 'php',
  'scala', 'clojure', 'haskell', 'ocaml', 'elixir', 'erlang', 'lua', 'dart', 'r', 'perl', 'shell', 'powershell', 'sql', 'html', 'css', 'solidity', 'zig',
];
const LIBRARY_LANGUAGES: LibraryLanguage[] = ['typescript', 'tsx', 'javascript', 'jsx'];

const CODE_INPUT = obj(
  {
    source: str(`The source code (at most ${SOURCE_CODE_MAX} characters)`, { minLength: 1, maxLength: SOURCE_CODE_MAX }),
    language: str('Its language (without a model backend: typescript, tsx, javascript or jsx)', { enum: CODE_LANGUAGES }),
    filename: str('Its file name, for reference', { minLength: 1, maxLength: 256 }),
  },
  ['source', 'language'],
);

/** Without a backend only the library's languages are read: any other is the caller's to change. */
function libraryLanguage(language: string): LibraryLanguage {
  if ((LIBRARY_LANGUAGES as string[]).includes(language)) return language as LibraryLanguage;
  throw new ValidationFailed([{ path: 'language', message: `without a model backend (LLM_BASE_URL) the marketplace reads ${LIBRARY_LANGUAGES.join(', ')} only` }]);
}

/** Lines as editors count them: a final line break ends the last line, it does not start another. */
const lineCount = (source: string) => Math.max(1, source.split('\n').length - (source.endsWith('\n') ? 1 : 0));
const numbered = (source: string) =>
  source
    .split('\n')
    .map((line, i) => `${i + 1}| ${line}`)
    .join('\n');

const SEVERITIES = ['error', 'warning', 'info'];
const REVIEW_CATEGORIES = ['bug', 'security', 'performance', 'correctness', 'maintainability', 'style'];

const codeReview: FirstPartyCapability = {
  slug: 'code-review',
  kind: 'generic',
  summary: 'Reviews source code: the model’s findings, or without a backend the TypeScript compiler’s diagnostics and ESLint’s recommended rules (TypeScript and JavaScript)',
  inputSchema: CODE_INPUT,
  outputSchema: obj(
    {
      method: METHOD,
      model: MODEL_OR_NULL,
      language: str('The language read'),
      summary: str('The review in a sentence or two (the library’s counts its findings)'),
      findings: list(
        obj(
          {
            source: str('Who found it', { enum: ['compiler', 'lint', 'model'] }),
            severity: str('How much it matters', { enum: SEVERITIES }),
            rule: nullable(str('The compiler’s diagnostic (TS2322), ESLint’s rule, or the model’s category')),
            line: nullable(int('The line, from 1', { minimum: 1 })),
            column: nullable(int('The column, from 1', { minimum: 1 })),
            message: str('What is wrong'),
            suggestion: nullable(str('How to fix it (model)')),
          },
          ['source', 'severity', 'rule', 'line', 'column', 'message', 'suggestion'],
        ),
        'The findings, most severe first (at most 200)',
      ),
      total: int('Findings in all (beyond the 200 listed, counted)', { minimum: 0 }),
      counts: obj({ error: int('Errors', { minimum: 0 }), warning: int('Warnings', { minimum: 0 }), info: int('Notes', { minimum: 0 }) }, ['error', 'warning', 'info']),
      checks: strings('What ran: the compiler and linter with their versions, or the model'),
    },
    ['method', 'model', 'language', 'summary', 'findings', 'total', 'counts', 'checks'],
  ),
  run: async (ctx, _me, input, signal) => {
    const source = String(input.source);
    const language = String(input.language);
    if (!ctx.services.chatModel) {
      const r = await runLibrary('review', { source, language: libraryLanguage(language) }, signal);
      const { error, warning, info } = r.counts;
      const summary =
        r.total === 0
          ? `No findings in ${r.lines} line${r.lines === 1 ? '' : 's'}: ${r.checks.join(' and ')} reported nothing.`
          : `${r.checks.join(' and ')} reported ${error} error${error === 1 ? '' : 's'}, ${warning} warning${warning === 1 ? '' : 's'} and ${info} note${info === 1 ? '' : 's'} in ${r.lines} line${r.lines === 1 ? '' : 's'}.`;
      const findings = r.findings.map((f) => ({ ...f, suggestion: null }));
      return { output: { method: 'library', model: null, language, summary, findings, total: r.total, counts: r.counts, checks: r.checks } };
    }
    const lines = lineCount(source);
    type Answer = { summary: string; findings: { severity: string; category: string; line: number | null; message: string; suggestion: string | null }[] };
    const { answer, model, usage } = await askModel<Answer>(
      ctx,
      {
        name: 'code_review',
        instructions: `Review this ${language} source as a careful senior engineer: bugs, security problems, incorrect behaviour, performance, then maintainability and style. The source is given with its line numbers ("12| code"); cite the line of each finding (null when it concerns the whole). Report only what is actually in the code, most severe first, at most 50 findings; none is a valid answer. Summarize the review in one or two sentences.`,
        input: { language, filename: input.filename ?? null, source: numbered(source) },
        schema: obj(
          {
            summary: str('The review in one or two sentences'),
            findings: list(
              obj(
                {
                  severity: str('How much it matters', { enum: SEVERITIES }),
                  category: str('Its kind', { enum: REVIEW_CATEGORIES }),
                  line: { type: ['integer', 'null'], minimum: 1, description: 'The line' },
                  message: str('What is wrong'),
                  suggestion: nullable(str('How to fix it')),
                },
                ['severity', 'category', 'line', 'message', 'suggestion'],
              ),
              'The findings, most severe first',
              { maxItems: 50 },
            ),
          },
          ['summary', 'findings'],
        ),
        maxTokens: 4_096,
        temperature: 0.1,
        check: (a) => a.findings.filter((f) => f.line !== null && f.line > lines).map((f) => `a finding cites line ${f.line}, but the source has ${lines} line${lines === 1 ? '' : 's'}`),
      },
      signal,
    );
    const order = (s: string) => SEVERITIES.indexOf(s);
    const findings = [...answer.findings]
      .sort((a, b) => order(a.severity) - order(b.severity))
      .map((f) => ({ source: 'model', severity: f.severity, rule: f.category, line: f.line, column: null, message: f.message, suggestion: f.suggestion }));
    const counts = { error: 0, warning: 0, info: 0 };
    for (const f of findings) counts[f.severity as keyof typeof counts] += 1;
    return fromModel(model, usage, { language, summary: answer.summary, findings, total: findings.length, counts, checks: [`model ${model}`] });
  },
};

const DECLARATION_KINDS = ['function', 'class', 'method', 'constructor', 'property', 'accessor', 'interface', 'type', 'enum', 'variable', 'namespace'];

const codeExplain: FirstPartyCapability = {
  slug: 'code-explain',
  kind: 'generic',
  summary: 'Explains source code: the model’s walk through its parts, or without a backend a structural outline from the TypeScript parser (imports, exports, declarations; TypeScript and JavaScript)',
  inputSchema: CODE_INPUT,
  outputSchema: obj(
    {
      method: METHOD,
      model: MODEL_OR_NULL,
      language: str('The language read'),
      lines: int('Lines in the source', { minimum: 1 }),
      summary: str('What the code is: the model’s explanation, or a sentence counting the outline'),
      explanation: nullable(
        obj(
          {
            parts: list(
              obj(
                { name: str('The part'), start_line: int('Its first line', { minimum: 1 }), end_line: int('Its last line', { minimum: 1 }), explanation: str('What it does and how') },
                ['name', 'start_line', 'end_line', 'explanation'],
              ),
              'The code’s parts in order',
            ),
            concepts: strings('Ideas, patterns and APIs a reader should know'),
          },
          ['parts', 'concepts'],
        ),
      ),
      outline: nullable(
        obj(
          {
            syntax_errors: int('Syntax errors the parser recovered from', { minimum: 0 }),
            imports: list(obj({ module: str('The module'), names: strings('What is imported, as written'), line: int('The line') }, ['module', 'names', 'line']), 'Imports (import and require)'),
            exports: list(obj({ name: str('The exported name (default, *)'), from: nullable(str('Re-exported from')), line: int('The line') }, ['name', 'from', 'line']), 'Exports'),
            declarations: list(
              obj(
                {
                  kind: str('What it declares', { enum: DECLARATION_KINDS }),
                  name: str('Its name'),
                  parent: nullable(str('The class or namespace it belongs to')),
                  line: int('Its first line'),
                  end_line: int('Its last line'),
                  exported: bool('Whether the module exports it'),
                  signature: nullable(str('Parameters and return type as written, or a declared type')),
                },
                ['kind', 'name', 'parent', 'line', 'end_line', 'exported', 'signature'],
              ),
              'Top-level declarations and their members, in order (at most 500)',
            ),
          },
          ['syntax_errors', 'imports', 'exports', 'declarations'],
        ),
      ),
    },
    ['method', 'model', 'language', 'lines', 'summary', 'explanation', 'outline'],
  ),
  run: async (ctx, _me, input, signal) => {
    const source = String(input.source);
    const language = String(input.language);
    if (!ctx.services.chatModel) {
      const r = await runLibrary('outline', { source, language: libraryLanguage(language) }, signal);
      const { summary, lines, ...outline } = r;
      return { output: { method: 'library', model: null, language, lines, summary, explanation: null, outline } };
    }
    const lines = lineCount(source);
    type Answer = { summary: string; parts: { name: string; start_line: number; end_line: number; explanation: string }[]; concepts: string[] };
    const { answer, model, usage } = await askModel<Answer>(
      ctx,
      {
        name: 'code_explain',
        instructions: `Explain this ${language} source to a developer who has not seen it: first what it is for and how it works overall (summary), then its parts in order with their line ranges (the source is given with its line numbers, "12| code"), then the ideas, patterns and APIs a reader needs. Explain what the code does, not what it might do.`,
        input: { language, filename: input.filename ?? null, source: numbered(source) },
        schema: obj(
          {
            summary: str('What the code is for and how it works'),
            parts: list(
              obj(
                { name: str('The part'), start_line: int('Its first line', { minimum: 1 }), end_line: int('Its last line', { minimum: 1 }), explanation: str('What it does and how') },
                ['name', 'start_line', 'end_line', 'explanation'],
              ),
              'The parts in order',
              { maxItems: 60 },
            ),
            concepts: list(str('One'), 'Ideas, patterns and APIs to know', { maxItems: 20 }),
          },
          ['summary', 'parts', 'concepts'],
        ),
        maxTokens: 4_096,
        temperature: 0.2,
        check: (a) =>
          a.parts
            .filter((p) => p.end_line < p.start_line || p.end_line > lines)
            .map((p) => `the part ${JSON.stringify(p.name)} spans lines ${p.start_line}–${p.end_line}, but the source has lines 1–${lines}`),
      },
      signal,
    );
    return fromModel(model, usage, { language, lines, summary: answer.summary, explanation: { parts: answer.parts, concepts: answer.concepts }, outline: null });
  },
};

// ---- document-draft and content-rewrite ----------------------------------------------------------------

const DOCUMENT_KINDS = ['email', 'letter', 'memo', 'report', 'proposal', 'article', 'blog_post', 'announcement', 'press_release', 'readme', 'specification', 'other'];
const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

const documentDraft: FirstPartyCapability = {
  slug: 'document-draft',
  kind: 'generic',
  ...needsModel,
  summary: 'Drafts a document (an email, a report, a proposal…) from a brief; facts the brief does not give are left as [placeholders] (model)',
  inputSchema: obj(
    {
      kind: str('What document', { enum: DOCUMENT_KINDS }),
      brief: str('What it must say: the facts, points and requests to include (at most 10,000 characters)', { minLength: 1, maxLength: 10_000 }),
      title: str('Its title, if decided', { minLength: 1, maxLength: 200 }),
      audience: str('Who will read it', { minLength: 1, maxLength: 500 }),
      tone: str('Its tone (formal, warm, …)', { minLength: 1, maxLength: 100 }),
      language: LANGUAGE('The language to write in (default English)'),
      format: str('markdown (default) or plain text', { enum: ['markdown', 'plain'] }),
      max_words: int('About this many words at most (default 600)', { minimum: 50, maximum: 4_000 }),
    },
    ['kind', 'brief'],
  ),
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      title: str('The title'),
      body: str('The document'),
      format: str('The body’s format', { enum: ['markdown', 'plain'] }),
      word_count: int('Words in the body', { minimum: 0 }),
      placeholders: strings('Facts the brief did not give, left in the body as [placeholders] to fill'),
    },
    ['method', 'model', 'title', 'body', 'format', 'word_count', 'placeholders'],
  ),
  run: async (ctx, _me, input, signal) => {
    const format = (input.format as string | undefined) ?? 'markdown';
    const maxWords = (input.max_words as number | undefined) ?? 600;
    const { answer, model, usage } = await askModel<{ title: string; body: string; placeholders: string[] }>(
      ctx,
      {
        name: 'document_draft',
        instructions: `Draft a ${String(input.kind).replace('_', ' ')} from the brief, in ${input.language ? String(input.language) : 'English'}, as ${format === 'markdown' ? 'Markdown' : 'plain text'}, in at most about ${maxWords} words${input.audience ? `, for ${String(input.audience)}` : ''}${input.tone ? `, in a ${String(input.tone)} tone` : ''}. Use the title if one is given. Say only what the brief supports: where a fact is needed that it does not give (a name, a date, a figure), write a placeholder in square brackets, such as [date of the meeting], and list each placeholder.`,
        input: { kind: input.kind, brief: input.brief, title: input.title ?? null },
        schema: obj({ title: str('The title'), body: str('The document'), placeholders: list(str('A [placeholder] used in the body'), 'Every placeholder used') }, ['title', 'body', 'placeholders']),
        maxTokens: Math.min(8_192, 256 + Math.ceil(maxWords * 2)),
        temperature: 0.6,
      },
      signal,
    );
    return fromModel(model, usage, { title: answer.title, body: answer.body, format, word_count: wordsIn(answer.body), placeholders: answer.placeholders });
  },
};

const STYLES = ['formal', 'casual', 'concise', 'simple', 'expanded', 'persuasive', 'neutral', 'friendly', 'professional', 'academic'];

const contentRewrite: FirstPartyCapability = {
  slug: 'content-rewrite',
  kind: 'generic',
  ...needsModel,
  summary: 'Rewrites a text in a style or as instructed, keeping its meaning, and says what changed (model)',
  inputSchema: obj(
    {
      text: str(`The text (at most ${REWRITE_MAX} characters)`, { minLength: 1, maxLength: REWRITE_MAX }),
      style: str('The style to write in', { enum: STYLES }),
      instructions: str('How to rewrite it (without instructions or a style: for clarity and readability)', { minLength: 1, maxLength: 2_000 }),
      audience: str('Who will read it', { minLength: 1, maxLength: 500 }),
      language: LANGUAGE('The language to write in (default: the text’s)'),
    },
    ['text'],
  ),
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      text: str('The rewritten text'),
      style: nullable(str('The style asked for', { enum: STYLES })),
      changes: strings('What was changed, briefly'),
    },
    ['method', 'model', 'text', 'style', 'changes'],
  ),
  run: async (ctx, _me, input, signal) => {
    const how = [input.style ? `in a ${String(input.style)} style` : input.instructions ? '' : 'for clarity and readability', input.audience ? `for ${String(input.audience)}` : '', input.language ? `in ${String(input.language)}` : 'in the text’s own language'].filter(Boolean).join(', ');
    const { answer, model, usage } = await askModel<{ text: string; changes: string[] }>(
      ctx,
      {
        name: 'content_rewrite',
        instructions: `Rewrite the text ${how}${input.instructions ? ', following the instructions given with it' : ''}. Keep its meaning and its facts; add no claim it does not make. List what you changed, briefly.`,
        input: { text: input.text, instructions: input.instructions ?? null },
        schema: obj({ text: str('The rewritten text'), changes: list(str('A change'), 'What was changed', { maxItems: 20 }) }, ['text', 'changes']),
        maxTokens: 8_192,
        temperature: 0.5,
      },
      signal,
    );
    return fromModel(model, usage, { text: answer.text, style: (input.style as string | undefined) ?? null, changes: answer.changes });
  },
};

// ---- research-synthesize and research-compare ------------------------------------------------------------

/** The sources' total size (JSON Schema bounds each, not their sum). */
function totalWithin(items: { content: string }[], path: string): void {
  const total = items.reduce((n, s) => n + s.content.length, 0);
  if (total > SOURCES_TOTAL_MAX) throw new ValidationFailed([{ path, message: `must hold at most ${SOURCES_TOTAL_MAX} characters of content in all (${total} given)` }]);
}

const researchSynthesize: FirstPartyCapability = {
  slug: 'research-synthesize',
  kind: 'generic',
  ...needsModel,
  summary: 'Answers a question from the sources given (texts, not fetched), each claim citing the sources that support it, and says what they leave open (model)',
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
      findings: list(obj({ claim: str('A claim'), sources: strings('The ids of the sources that support it', { minItems: 1 }) }, ['claim', 'sources']), 'The answer’s claims and their sources'),
      gaps: strings('What the sources leave open or disagree on'),
      confidence: str('How well the sources answer the question', { enum: ['low', 'medium', 'high'] }),
      sources: list(obj({ id: str('Its id'), title: nullable(str('Its title')), url: nullable(str('Where it is from')) }, ['id', 'title', 'url']), 'The sources, as cited'),
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
            findings: list(obj({ claim: str('A claim'), sources: list(str('A source id', { enum: ids }), 'Its sources', { minItems: 1 }) }, ['claim', 'sources']), 'The claims', { maxItems: 30 }),
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

const researchCompare: FirstPartyCapability = {
  slug: 'research-compare',
  kind: 'generic',
  ...needsModel,
  summary: 'Compares items (products, papers, options) from the texts given, criterion by criterion (model)',
  inputSchema: obj(
    {
      items: list(
        obj({ name: str('Its name (each distinct)', { minLength: 1, maxLength: 200 }), content: str(`What is known of it (at most ${SOURCE_MAX} characters; ${SOURCES_TOTAL_MAX} for all)`, { minLength: 1, maxLength: SOURCE_MAX }) }, ['name', 'content']),
        'The items (2–10)',
        { minItems: 2, maxItems: 10 },
      ),
      criteria: list(str('A criterion', { minLength: 1, maxLength: 200 }), 'What to compare them on (default: the model chooses)', { minItems: 1, maxItems: 20, uniqueItems: true }),
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
    type Answer = { summary: string; criteria: { criterion: string; assessments: { item: string; assessment: string }[]; leader: string | null }[]; similarities: string[]; differences: string[]; recommendation: string | null };
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
                  assessments: list(obj({ item: str('The item', { enum: names }), assessment: str('How it fares') }, ['item', 'assessment']), 'Every item once', { minItems: names.length, maxItems: names.length }),
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
          ...a.criteria.flatMap((c) => names.filter((n) => !c.assessments.some((x) => x.item === n)).map((n) => `criterion ${JSON.stringify(c.criterion)} does not assess ${JSON.stringify(n)}`)),
          ...(criteria ?? []).filter((c) => !a.criteria.some((x) => x.criterion === c)).map((c) => `the criterion ${JSON.stringify(c)} is missing`),
        ],
      },
      signal,
    );
    return fromModel(model, usage, { ...answer, recommendation: question ? answer.recommendation : null });
  },
};

// ---- arabic-cultural and arabic-poetry -------------------------------------------------------------------

const REGIONS = ['general', 'gulf', 'levant', 'egypt', 'maghreb', 'iraq', 'sudan', 'yemen'];
const REGION_NAMES: Record<string, string> = {
  general: 'the Arabic-speaking world at large',
  gulf: 'the Gulf states',
  levant: 'the Levant',
  egypt: 'Egypt',
  maghreb: 'the Maghreb',
  iraq: 'Iraq',
  sudan: 'Sudan',
  yemen: 'Yemen',
};
const CULTURAL_TASKS: Record<string, string> = {
  explain: 'Explain the cultural references, idioms, customs, religious and historical allusions in the text for a reader from outside the culture: result is the explanation, notes the points one by one.',
  adapt: 'Adapt the text for an Arabic-speaking audience: keep its purpose, change what would not land or would offend (references, examples, idioms, imagery, forms of address); result is the adapted text, notes what was changed and why.',
  review: 'Review the text for how it would be received by an Arabic-speaking audience: result is the overall assessment, notes each point to keep, reconsider or avoid.',
};

const arabicCultural: FirstPartyCapability = {
  slug: 'arabic-cultural',
  kind: 'generic',
  ...needsModel,
  summary: 'Arabic cultural context for a text: explains its references and idioms, adapts it for an Arabic-speaking audience, or reviews how it would be received, by region (model)',
  inputSchema: obj(
    {
      text: str(`The text, in Arabic or another language (at most ${REWRITE_MAX} characters)`, { minLength: 1, maxLength: REWRITE_MAX }),
      task: str('explain (default), adapt or review', { enum: Object.keys(CULTURAL_TASKS) }),
      region: str('The audience’s region (default general)', { enum: REGIONS }),
      output_language: str('The language of the explanation and notes: en (default) or ar; an adapted text is in Arabic', { enum: ['en', 'ar'] }),
    },
    ['text'],
  ),
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      task: str('What was done', { enum: Object.keys(CULTURAL_TASKS) }),
      region: str('For which region', { enum: REGIONS }),
      result: str('The explanation, the adapted text, or the assessment'),
      notes: list(
        obj({ topic: str('What the note is about'), note: str('The note'), sensitivity: str('info, caution, or avoid', { enum: ['info', 'caution', 'avoid'] }) }, ['topic', 'note', 'sensitivity']),
        'Point by point',
      ),
    },
    ['method', 'model', 'task', 'region', 'result', 'notes'],
  ),
  run: async (ctx, _me, input, signal) => {
    const task = (input.task as string | undefined) ?? 'explain';
    const region = (input.region as string | undefined) ?? 'general';
    const language = (input.output_language as string | undefined) === 'ar' ? 'Arabic' : 'English';
    const { answer, model, usage } = await askModel<{ result: string; notes: { topic: string; note: string; sensitivity: string }[] }>(
      ctx,
      {
        name: 'arabic_cultural',
        instructions: `You are an expert in the cultures of ${REGION_NAMES[region]}. ${CULTURAL_TASKS[task]} Write explanations and notes in ${language}. Be specific to the region where customs differ; where you are not sure, say so rather than generalize.`,
        input: { text: input.text },
        schema: obj(
          {
            result: str('The result'),
            notes: list(obj({ topic: str('About'), note: str('The note'), sensitivity: str('info, caution, or avoid', { enum: ['info', 'caution', 'avoid'] }) }, ['topic', 'note', 'sensitivity']), 'Point by point', { maxItems: 30 }),
          },
          ['result', 'notes'],
        ),
        maxTokens: 4_096,
        temperature: 0.3,
      },
      signal,
    );
    return fromModel(model, usage, { task, region, result: answer.result, notes: answer.notes });
  },
};

const POETRY_FORMS = ['qasida', 'ghazal', 'nabati', 'muwashshah', 'free_verse', 'any'];
/** The sixteen meters (buḥūr) of Arabic prosody, al-Khalīl's fifteen and al-Akhfash's mutadārik. */
const METERS = ['tawil', 'madid', 'basit', 'wafir', 'kamil', 'hazaj', 'rajaz', 'ramal', 'sari', 'munsarih', 'khafif', 'mudari', 'muqtadab', 'mujtath', 'mutaqarib', 'mutadarik'];

const arabicPoetry: FirstPartyCapability = {
  slug: 'arabic-poetry',
  kind: 'generic',
  ...needsModel,
  summary: 'Arabic poetry: composes a poem on a theme in a form and meter, or analyzes a poem’s meter, rhyme, themes and devices (model)',
  inputSchema: {
    type: 'object',
    description: 'Either theme (to compose a poem) or poem (to analyze one)',
    properties: {
      theme: str('What to write about: a poem is composed', { minLength: 1, maxLength: 500 }),
      poem: str('A poem to analyze (at most 10,000 characters)', { minLength: 1, maxLength: 10_000 }),
      form: str('The form to compose in (default any)', { enum: POETRY_FORMS }),
      meter: str('The meter, baḥr, to compose in (default the model’s choice)', { enum: METERS }),
      verses: int('How many verses to compose (default 8)', { minimum: 2, maximum: 40 }),
      translate: { type: 'boolean', description: 'Add an English translation, verse by verse (default false)' },
    },
    additionalProperties: false,
    oneOf: [{ required: ['theme'] }, { required: ['poem'] }],
  },
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      task: str('What was done: compose (a theme was given) or analyze (a poem was)', { enum: ['compose', 'analyze'] }),
      poem: nullable(obj({ title: str('Its title'), verses: strings('Its verses, one a line'), meter: nullable(str('The meter it is written in')), rhyme: nullable(str('Its rhyme letter (rawī)')) }, ['title', 'verses', 'meter', 'rhyme'])),
      analysis: nullable(
        obj(
          {
            meter: nullable(str('The meter, if it has one')),
            rhyme: nullable(str('The rhyme letter, if it rhymes')),
            form: nullable(str('Its form')),
            themes: strings('Its themes'),
            devices: list(obj({ device: str('The device'), example: str('Where, quoted'), explanation: str('What it does') }, ['device', 'example', 'explanation']), 'Rhetorical and poetic devices'),
            explanation: str('What the poem says and how'),
          },
          ['meter', 'rhyme', 'form', 'themes', 'devices', 'explanation'],
        ),
      ),
      translation: nullable(strings('An English translation, verse by verse, when asked')),
      notes: str('A note on the choices made or the reading'),
    },
    ['method', 'model', 'task', 'poem', 'analysis', 'translation', 'notes'],
  ),
  run: async (ctx, _me, input, signal) => {
    const translate = input.translate === true;
    const translation = translate ? list(str('A verse'), 'The English translation, verse by verse') : { type: 'null', description: 'null: no translation was asked' };
    if (typeof input.theme === 'string') {
      const verses = (input.verses as number | undefined) ?? 8;
      const form = (input.form as string | undefined) ?? 'any';
      const meter = input.meter as string | undefined;
      type Answer = { title: string; verses: string[]; meter: string | null; rhyme: string | null; translation: string[] | null; notes: string };
      const { answer, model, usage } = await askModel<Answer>(
        ctx,
        {
          name: 'arabic_poetry',
          instructions: `You are a master of Arabic poetry. Compose an original poem in Arabic on the theme given: ${verses} verses (each verse, bayt, on one line)${form !== 'any' ? `, in the form of a ${form.replace('_', ' ')}` : ''}${meter ? `, in the ${meter} meter` : ''}, with one rhyme throughout unless the form is free verse. Give it a title, name the meter and the rhyme letter you used (null if none), ${translate ? 'translate it into English verse by verse, ' : ''}and note your choices briefly.`,
          input: { theme: input.theme },
          schema: obj(
            { title: str('The title'), verses: list(str('A verse'), 'The verses', { minItems: verses, maxItems: verses }), meter: nullable(str('The meter used')), rhyme: nullable(str('The rhyme letter')), translation, notes: str('A short note') },
            ['title', 'verses', 'meter', 'rhyme', 'translation', 'notes'],
          ),
          maxTokens: Math.min(8_192, 512 + verses * (translate ? 160 : 80)),
          temperature: 0.8,
        },
        signal,
      );
      return fromModel(model, usage, { task: 'compose', poem: { title: answer.title, verses: answer.verses, meter: answer.meter, rhyme: answer.rhyme }, analysis: null, translation: answer.translation, notes: answer.notes });
    }
    type Answer = { meter: string | null; rhyme: string | null; form: string | null; themes: string[]; devices: { device: string; example: string; explanation: string }[]; explanation: string; translation: string[] | null; notes: string };
    const { answer, model, usage } = await askModel<Answer>(
      ctx,
      {
        name: 'arabic_poetry',
        instructions: `You are a scholar of Arabic poetry and prosody. Analyze the poem: its meter (null if it has none, or you cannot scan it with confidence), its rhyme letter (null if it does not rhyme), its form, its themes, its devices (each quoted from the poem), and what it says and how. ${translate ? 'Translate it into English verse by verse. ' : ''}Note anything uncertain in the reading. Write the analysis in English.`,
        input: { poem: input.poem },
        schema: obj(
          {
            meter: nullable(str('The meter')),
            rhyme: nullable(str('The rhyme letter')),
            form: nullable(str('The form')),
            themes: list(str('A theme'), 'Its themes', { maxItems: 10 }),
            devices: list(obj({ device: str('The device'), example: str('Quoted from the poem'), explanation: str('What it does') }, ['device', 'example', 'explanation']), 'Its devices', { maxItems: 15 }),
            explanation: str('What it says and how'),
            translation,
            notes: str('Uncertainties in the reading, or none'),
          },
          ['meter', 'rhyme', 'form', 'themes', 'devices', 'explanation', 'translation', 'notes'],
        ),
        maxTokens: 4_096,
        temperature: 0.2,
      },
      signal,
    );
    const { translation: translated, notes, ...analysis } = answer;
    return fromModel(model, usage, { task: 'analyze', poem: null, analysis, translation: translated, notes });
  },
};

// ---- agent-vibe ------------------------------------------------------------------------------------------

/** What an agent shows of itself to anyone: its name, standing, and its active services' descriptions. */
async function publicPresence(ctx: Ctx, meId: string, agentId: string) {
  const agent = await ctx.db.agent.findUnique({ where: { id: agentId }, select: { id: true, name: true, description: true, capabilities: true, reputation: true, createdAt: true } });
  if (!agent) throw new NotFound('agent', agentId);
  const services = await ctx.db.service.findMany({
    where: { agentId, status: 'active' },
    select: { name: true, description: true, capabilities: true },
    orderBy: { createdAt: 'desc' },
    take: 20,
  });
  // An agent's own description and capabilities are its own to read; of another, only what it publishes.
  const own = agentId === meId;
  return {
    agent,
    material: {
      name: agent.name,
      tier: tierOf(agent.reputation),
      reputation: agent.reputation,
      registered_at: agent.createdAt.toISOString(),
      ...(own ? { description: agent.description, capabilities: agent.capabilities } : {}),
      services: services.map((s) => ({ name: s.name, description: s.description, capabilities: s.capabilities })),
    },
    described: own || services.length > 0,
  };
}

const agentVibe: FirstPartyCapability = {
  slug: 'agent-vibe',
  kind: 'generic',
  ...needsModel,
  summary: 'The impression an agent gives — its vibe, tone and traits, each with its evidence — read from its public presence (name, standing, services) or from a text it wrote (model)',
  inputSchema: {
    type: 'object',
    description: 'Either agent_id or text',
    properties: {
      agent_id: str('An agent (UUID): its name, tier and active services are read (and its own description, if it is the caller)', { format: 'uuid' }),
      text: str('Something an agent wrote (a description, messages, a post; at most 20,000 characters)', { minLength: 1, maxLength: REWRITE_MAX }),
    },
    additionalProperties: false,
    oneOf: [{ required: ['agent_id'] }, { required: ['text'] }],
  },
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      subject: obj({ kind: str('What was read', { enum: ['agent', 'text'] }), agent_id: nullable(str('The agent')), name: nullable(str('Its name')) }, ['kind', 'agent_id', 'name']),
      vibe: str('The impression in a few words'),
      tone: str('How it sounds'),
      traits: list(obj({ trait: str('A trait'), evidence: str('What in the material shows it') }, ['trait', 'evidence']), 'Its traits, each with its evidence'),
      summary: str('The read in two or three sentences'),
    },
    ['method', 'model', 'subject', 'vibe', 'tone', 'traits', 'summary'],
  ),
  run: async (ctx, me, input, signal) => {
    let subject: { kind: 'agent' | 'text'; agent_id: string | null; name: string | null };
    let material: unknown;
    if (typeof input.agent_id === 'string') {
      const presence = await publicPresence(ctx, me.id, input.agent_id);
      if (!presence.described) throw new ValidationFailed([{ path: 'agent_id', message: 'is an agent with no active service: nothing public describes it beyond its name' }]);
      subject = { kind: 'agent', agent_id: presence.agent.id, name: presence.agent.name };
      material = presence.material;
    } else {
      subject = { kind: 'text', agent_id: null, name: null };
      material = { text: input.text };
    }
    const { answer, model, usage } = await askModel<{ vibe: string; tone: string; traits: { trait: string; evidence: string }[]; summary: string }>(
      ctx,
      {
        name: 'agent_vibe',
        instructions:
          'Read the impression this software agent gives from the material alone (its public presence, or a text it wrote): its vibe in a few words, its tone, and its traits, each with the evidence in the material that shows it (quote or point at it). Read only what the material shows; a thin material makes a short, tentative read.',
        input: { material },
        schema: obj(
          {
            vibe: str('A few words'),
            tone: str('How it sounds'),
            traits: list(obj({ trait: str('A trait'), evidence: str('Its evidence in the material') }, ['trait', 'evidence']), 'Its traits', { minItems: 1, maxItems: 8 }),
            summary: str('Two or three sentences'),
          },
          ['vibe', 'tone', 'traits', 'summary'],
        ),
        maxTokens: 1_024,
        temperature: 0.4,
      },
      signal,
    );
    return fromModel(model, usage, { subject, ...answer });
  },
};

export const NLP_CAPABILITIES: FirstPartyCapability[] = [
  summarize,
  translate,
  sentiment,
  classify,
  codeReview,
  codeExplain,
  documentDraft,
  contentRewrite,
  researchSynthesize,
  researchCompare,
  arabicCultural,
  arabicPoetry,
  agentVibe,
];

/** The five served without a model backend by a library (docs/capabilities/nlp.md). */
export const LIBRARY_SERVED = ['summarize', 'sentiment', 'classify', 'code-review', 'code-explain'];
