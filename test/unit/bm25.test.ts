// BM25 as web-research ranks passages with it: tokens, rare words weighing more than common ones,
// repeats saturating, longer passages damped, and the scores against a hand computation.
import { bm25Tokens, rankBm25 } from '../../src/platform/bm25';

describe('bm25Tokens', () => {
  it('reads words of any script, lower-cased and NFKC-normalised, without function words or punctuation', () => {
    expect(bm25Tokens('The Café in Zürich — and ＡＰＩ keys, 3.14!')).toEqual(['café', 'zürich', 'api', 'keys', '3.14']);
    expect(bm25Tokens('what is it?')).toEqual([]);
  });
});

describe('rankBm25', () => {
  const docs = ['green tea brewing temperature', 'black tea boils', 'coffee roasting temperature', 'nothing shared here'].map(bm25Tokens);

  it('returns only documents sharing a word with the query, best first', () => {
    const ranked = rankBm25(docs, bm25Tokens('green tea temperature'));
    expect(ranked.map((r) => r.index)).toEqual([0, 1, 2]);
    expect(ranked.every((r) => r.score > 0)).toBe(true);
    // "tea" and "temperature" are each in two documents of three words: a tie, kept in the documents' order.
    expect(ranked[1].score).toBe(ranked[2].score);
  });

  it('matches a hand computation of k1 = 1.2, b = 0.75 and the non-negative IDF', () => {
    const [top] = rankBm25(docs, ['green']);
    // N = 4, n = 1: idf = ln(1 + 3.5/1.5); tf = 1, |d| = 4 words, average 13/4 words.
    const idf = Math.log(1 + 3.5 / 1.5);
    const expected = (idf * (1 * 2.2)) / (1 + 1.2 * (1 - 0.75 + (0.75 * 4) / 3.25));
    expect(top.index).toBe(0);
    expect(top.score).toBeCloseTo(expected, 10);
  });

  it('weighs a rare word over a common one, saturates repeats and damps long passages', () => {
    const rare = rankBm25([['tea', 'rare'], ['tea'], ['tea'], ['tea']], ['tea', 'rare']);
    expect(rare[0].index).toBe(0);
    const [once, many] = [
      ['x', 'tea', 'y', 'z'],
      ['tea', 'tea', 'tea', 'tea'],
    ].map((d) => rankBm25([d, ['other']], ['tea'])[0].score);
    expect(many).toBeGreaterThan(once);
    expect(many).toBeLessThan(once * 4);
    const [short, long] = rankBm25(
      [
        ['tea', 'a'],
        ['tea', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
      ],
      ['tea'],
    ).sort((x, y) => x.index - y.index);
    expect(short.score).toBeGreaterThan(long.score);
  });

  it('answers nothing for an empty query or corpus', () => {
    expect(rankBm25(docs, [])).toEqual([]);
    expect(rankBm25([], ['tea'])).toEqual([]);
  });
});
