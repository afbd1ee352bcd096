// The nlp capabilities' library paths as pure functions (docs/capabilities/nlp.md): wink-nlp's sentiment,
// lexical classification, extractive summaries, TypeScript's and ESLint's findings, the syntax-tree outline.
import { outlineCode, reviewCode } from '../../src/domain/first-party/nlp-code';
import { classifyByTerms, extractSummary, sentimentOf } from '../../src/domain/first-party/nlp-text';

describe('sentimentOf', () => {
  it('reads negation and scores the text as the mean of its sentences', () => {
    const r = sentimentOf('The food was not bad at all. The service was awful.');
    expect(r.sentences[0]).toMatchObject({ label: 'positive' });
    expect(r.sentences[1]).toMatchObject({ label: 'negative' });
    expect(r.score).toBeCloseTo((r.sentences[0].score + r.sentences[1].score) / 2, 3);
  });

  it('lists the first 100 sentences and counts them all', () => {
    const r = sentimentOf('Good. '.repeat(150));
    expect(r.sentence_count).toBe(150);
    expect(r.sentences).toHaveLength(100);
  });

  it('calls a statement with no sentiment-bearing word neutral, with a score of 0', () => {
    expect(sentimentOf('The train leaves at nine from platform four.')).toMatchObject({ label: 'neutral', score: 0 });
  });
});

describe('classifyByTerms', () => {
  it('reads dashes in labels as word breaks and matches stems', () => {
    const r = classifyByTerms('The payments failed again', [{ name: 'payment-failure' }, { name: 'login-problem' }], false);
    expect(r).toMatchObject({ label: 'payment-failure', chosen: ['payment-failure'] });
    // `failed` stems to fail and `failure` to failur: lexical matching sees different words.
    expect(r.scores[0].matched_terms).toEqual(['payment']);
  });

  it('chooses nothing when no label shares a word with the text', () => {
    expect(classifyByTerms('zzz qqq', [{ name: 'a thing' }, { name: 'another thing' }], true)).toMatchObject({ label: null, chosen: [] });
  });
});

describe('extractSummary', () => {
  it('skips a sentence that repeats one already chosen', () => {
    const text = 'Solar power output grew fast this year. Solar power output grew fast this year! Wind output fell slightly. Power prices rose.';
    const r = extractSummary(text, 2);
    expect(r.extracted.map((e) => e.text)).not.toEqual(['Solar power output grew fast this year.', 'Solar power output grew fast this year!']);
    expect(r.extracted).toHaveLength(2);
  });

  it('summarizes 100 KB of text', () => {
    const words = [
      'river',
      'market',
      'engine',
      'garden',
      'signal',
      'harbor',
      'winter',
      'copper',
      'ladder',
      'planet',
      'violin',
      'meadow',
      'lantern',
      'orchard',
      'canyon',
    ];
    const sentences = Array.from(
      { length: 2_000 },
      (_, i) => `The ${words[i % 15]} near the ${words[(i * 7) % 15]} saw a ${words[(i * 11) % 13]} and a ${words[(i * 3) % 14]}.`,
    );
    const text = sentences.join(' ').slice(0, 100_000);
    const r = extractSummary(text, 3);
    expect(r.sentence_count).toBeGreaterThan(1_500);
    expect(r.extracted).toHaveLength(3);
  });

  it('gives fewer sentences than asked when the rest only repeat them', () => {
    expect(extractSummary('Sentence one talks about markets. '.repeat(50), 3).extracted).toHaveLength(1);
  });
});

describe('reviewCode', () => {
  it('reports only the syntax errors of a source that does not parse', () => {
    const r = reviewCode({ source: 'const x: number = ;\nlet y: string = 1;\n', language: 'typescript' });
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ source: 'compiler', severity: 'error', line: 1, rule: 'TS1109' });
  });

  it('checks CommonJS JavaScript with Node’s names known and unknown packages as any', () => {
    const r = reviewCode({
      source: "const lib = require('left-pad');\nmodule.exports = function pad(s) { return lib(s, process.env.WIDTH) + __dirname; };\n",
      language: 'javascript',
    });
    expect(r.findings).toEqual([]);
  });

  it('reports a name nothing declares', () => {
    const r = reviewCode({ source: 'export const total = items.length;\n', language: 'javascript' });
    expect(r.findings).toEqual([expect.objectContaining({ source: 'compiler', rule: 'TS2304', line: 1, message: "Cannot find name 'items'." })]);
  });

  it('reads JSX and TSX', () => {
    expect(reviewCode({ source: 'export const A = () => <div className="a">hi</div>;\n', language: 'jsx' }).findings).toEqual([]);
    const tsx = reviewCode({
      source: 'export const A = (p: { n: number }) => <b>{p.n.toFixed(2)}</b>;\nexport const B = () => <A n="one" />;\n',
      language: 'tsx',
    });
    expect(tsx.findings).toEqual([expect.objectContaining({ severity: 'error', rule: 'TS2322', line: 2 })]);
  });
});

describe('outlineCode', () => {
  it('outlines CommonJS: require as imports, module.exports and exports.x as exports', () => {
    const o = outlineCode({
      source: "const { readFile } = require('fs');\nconst path = require('path');\nfunction main() {}\nexports.main = main;\nmodule.exports.other = 1;\n",
      language: 'javascript',
    });
    expect(o.imports).toEqual([
      { module: 'fs', names: ['readFile'], line: 1 },
      { module: 'path', names: ['path'], line: 2 },
    ]);
    expect(o.exports.map((e) => e.name)).toEqual(['main', 'other']);
    expect(o.summary).toBe('A JavaScript script of 5 lines, declaring 1 function at the top level, importing 2 modules and exporting 2 names.');
  });

  it('counts syntax errors and still outlines what it can', () => {
    const o = outlineCode({ source: 'export function ok() {}\nfunction broken( {\n', language: 'typescript' });
    expect(o.syntax_errors).toBeGreaterThan(0);
    expect(o.declarations[0]).toMatchObject({ kind: 'function', name: 'ok', exported: true });
  });

  it('lists namespace members under their namespace, and re-exports with their module', () => {
    const o = outlineCode({
      source:
        "export namespace Geo { export const R = 6371; export function d(a: number): number { return a; } }\nexport * from './x';\nexport { y as z } from './y';\n",
      language: 'typescript',
    });
    expect(o.declarations.map((d) => [d.kind, d.name, d.parent])).toEqual([
      ['namespace', 'Geo', null],
      ['variable', 'R', 'Geo'],
      ['function', 'd', 'Geo'],
    ]);
    expect(o.exports).toEqual([
      { name: 'Geo', from: null, line: 1 },
      { name: '*', from: './x', line: 2 },
      { name: 'z', from: './y', line: 3 },
    ]);
  });
});
