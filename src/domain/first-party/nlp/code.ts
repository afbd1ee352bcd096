// code-review and code-explain: the model reads any language, the library TypeScript and JavaScript.
import { ValidationFailed } from '../../../platform/errors';
import type { LibraryLanguage } from '../nlp-code';
import { runLibrary } from '../nlp-library';
import { askModel } from '../nlp-model';
import { bool, int, list, nullable, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { SOURCE_CODE_MAX, METHOD, MODEL_OR_NULL, strings, fromModel } from './shared';

/** The languages the model reads; the library reads the first four. */
const CODE_LANGUAGES = [
  'typescript',
  'tsx',
  'javascript',
  'jsx',
  'python',
  'go',
  'rust',
  'java',
  'kotlin',
  'swift',
  'c',
  'cpp',
  'csharp',
  'fsharp',
  'objective-c',
  'ruby',
  'php',
  'scala',
  'clojure',
  'haskell',
  'ocaml',
  'elixir',
  'erlang',
  'lua',
  'dart',
  'r',
  'perl',
  'shell',
  'powershell',
  'sql',
  'html',
  'css',
  'solidity',
  'zig',
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
  throw new ValidationFailed([
    { path: 'language', message: `without a model backend (LLM_BASE_URL) the marketplace reads ${LIBRARY_LANGUAGES.join(', ')} only` },
  ]);
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

export const codeReview: FirstPartyCapability = {
  slug: 'code-review',
  kind: 'generic',
  summary:
    'Reviews source code: the model’s findings, or without a backend the TypeScript compiler’s diagnostics and ESLint’s recommended rules (TypeScript and JavaScript)',
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
      counts: obj({ error: int('Errors', { minimum: 0 }), warning: int('Warnings', { minimum: 0 }), info: int('Notes', { minimum: 0 }) }, [
        'error',
        'warning',
        'info',
      ]),
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
        check: (a) =>
          a.findings
            .filter((f) => f.line !== null && f.line > lines)
            .map((f) => `a finding cites line ${f.line}, but the source has ${lines} line${lines === 1 ? '' : 's'}`),
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

export const codeExplain: FirstPartyCapability = {
  slug: 'code-explain',
  kind: 'generic',
  summary:
    'Explains source code: the model’s walk through its parts, or without a backend a structural outline from the TypeScript parser (imports, exports, declarations; TypeScript and JavaScript)',
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
                {
                  name: str('The part'),
                  start_line: int('Its first line', { minimum: 1 }),
                  end_line: int('Its last line', { minimum: 1 }),
                  explanation: str('What it does and how'),
                },
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
            imports: list(
              obj({ module: str('The module'), names: strings('What is imported, as written'), line: int('The line') }, ['module', 'names', 'line']),
              'Imports (import and require)',
            ),
            exports: list(
              obj({ name: str('The exported name (default, *)'), from: nullable(str('Re-exported from')), line: int('The line') }, ['name', 'from', 'line']),
              'Exports',
            ),
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
                {
                  name: str('The part'),
                  start_line: int('Its first line', { minimum: 1 }),
                  end_line: int('Its last line', { minimum: 1 }),
                  explanation: str('What it does and how'),
                },
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
    return fromModel(model, usage, {
      language,
      lines,
      summary: answer.summary,
      explanation: { parts: answer.parts, concepts: answer.concepts },
      outline: null,
    });
  },
};
