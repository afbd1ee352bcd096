// document-draft and content-rewrite: writing a text.
import { askModel } from '../nlp-model';
import { int, list, nullable, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { REWRITE_MAX, needsModel, MODEL_METHOD, MODEL, strings, LANGUAGE, fromModel } from './shared';

const DOCUMENT_KINDS = [
  'email',
  'letter',
  'memo',
  'report',
  'proposal',
  'article',
  'blog_post',
  'announcement',
  'press_release',
  'readme',
  'specification',
  'other',
];
const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

export const documentDraft: FirstPartyCapability = {
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
        schema: obj(
          { title: str('The title'), body: str('The document'), placeholders: list(str('A [placeholder] used in the body'), 'Every placeholder used') },
          ['title', 'body', 'placeholders'],
        ),
        maxTokens: Math.min(8_192, 256 + Math.ceil(maxWords * 2)),
        temperature: 0.6,
      },
      signal,
    );
    return fromModel(model, usage, { title: answer.title, body: answer.body, format, word_count: wordsIn(answer.body), placeholders: answer.placeholders });
  },
};

const STYLES = ['formal', 'casual', 'concise', 'simple', 'expanded', 'persuasive', 'neutral', 'friendly', 'professional', 'academic'];

export const contentRewrite: FirstPartyCapability = {
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
    const how = [
      input.style ? `in a ${String(input.style)} style` : input.instructions ? '' : 'for clarity and readability',
      input.audience ? `for ${String(input.audience)}` : '',
      input.language ? `in ${String(input.language)}` : 'in the text’s own language',
    ]
      .filter(Boolean)
      .join(', ');
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
