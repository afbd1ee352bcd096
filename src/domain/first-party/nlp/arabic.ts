// arabic-cultural and arabic-poetry: Arabic cultural context for a text, and Arabic poems composed or analyzed.
import { askModel } from '../nlp-model';
import { int, list, nullable, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { REWRITE_MAX, needsModel, MODEL_METHOD, MODEL, strings, fromModel } from './shared';

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
  explain:
    'Explain the cultural references, idioms, customs, religious and historical allusions in the text for a reader from outside the culture: result is the explanation, notes the points one by one.',
  adapt:
    'Adapt the text for an Arabic-speaking audience: keep its purpose, change what would not land or would offend (references, examples, idioms, imagery, forms of address); result is the adapted text, notes what was changed and why.',
  review:
    'Review the text for how it would be received by an Arabic-speaking audience: result is the overall assessment, notes each point to keep, reconsider or avoid.',
};

export const arabicCultural: FirstPartyCapability = {
  slug: 'arabic-cultural',
  kind: 'generic',
  ...needsModel,
  summary:
    'Arabic cultural context for a text: explains its references and idioms, adapts it for an Arabic-speaking audience, or reviews how it would be received, by region (model)',
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
        obj(
          { topic: str('What the note is about'), note: str('The note'), sensitivity: str('info, caution, or avoid', { enum: ['info', 'caution', 'avoid'] }) },
          ['topic', 'note', 'sensitivity'],
        ),
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
            notes: list(
              obj({ topic: str('About'), note: str('The note'), sensitivity: str('info, caution, or avoid', { enum: ['info', 'caution', 'avoid'] }) }, [
                'topic',
                'note',
                'sensitivity',
              ]),
              'Point by point',
              { maxItems: 30 },
            ),
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
const METERS = [
  'tawil',
  'madid',
  'basit',
  'wafir',
  'kamil',
  'hazaj',
  'rajaz',
  'ramal',
  'sari',
  'munsarih',
  'khafif',
  'mudari',
  'muqtadab',
  'mujtath',
  'mutaqarib',
  'mutadarik',
];

export const arabicPoetry: FirstPartyCapability = {
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
      poem: nullable(
        obj(
          {
            title: str('Its title'),
            verses: strings('Its verses, one a line'),
            meter: nullable(str('The meter it is written in')),
            rhyme: nullable(str('Its rhyme letter (rawī)')),
          },
          ['title', 'verses', 'meter', 'rhyme'],
        ),
      ),
      analysis: nullable(
        obj(
          {
            meter: nullable(str('The meter, if it has one')),
            rhyme: nullable(str('The rhyme letter, if it rhymes')),
            form: nullable(str('Its form')),
            themes: strings('Its themes'),
            devices: list(
              obj({ device: str('The device'), example: str('Where, quoted'), explanation: str('What it does') }, ['device', 'example', 'explanation']),
              'Rhetorical and poetic devices',
            ),
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
    const translation = translate
      ? list(str('A verse'), 'The English translation, verse by verse')
      : { type: 'null', description: 'null: no translation was asked' };
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
            {
              title: str('The title'),
              verses: list(str('A verse'), 'The verses', { minItems: verses, maxItems: verses }),
              meter: nullable(str('The meter used')),
              rhyme: nullable(str('The rhyme letter')),
              translation,
              notes: str('A short note'),
            },
            ['title', 'verses', 'meter', 'rhyme', 'translation', 'notes'],
          ),
          maxTokens: Math.min(8_192, 512 + verses * (translate ? 160 : 80)),
          temperature: 0.8,
        },
        signal,
      );
      return fromModel(model, usage, {
        task: 'compose',
        poem: { title: answer.title, verses: answer.verses, meter: answer.meter, rhyme: answer.rhyme },
        analysis: null,
        translation: answer.translation,
        notes: answer.notes,
      });
    }
    type Answer = {
      meter: string | null;
      rhyme: string | null;
      form: string | null;
      themes: string[];
      devices: { device: string; example: string; explanation: string }[];
      explanation: string;
      translation: string[] | null;
      notes: string;
    };
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
            devices: list(
              obj({ device: str('The device'), example: str('Quoted from the poem'), explanation: str('What it does') }, ['device', 'example', 'explanation']),
              'Its devices',
              { maxItems: 15 },
            ),
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
