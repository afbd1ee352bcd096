// Okapi BM25: ranks short documents (passages) against a query by the words they share, each weighed by
// how rare it is among the documents and damped by how long the document is. Words are read by
// Intl.Segmenter (any script), lower-cased and NFKC-normalised, without a few English function words.

/** The usual parameters: k1 saturates a word's repeats, b scales by length relative to the average. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

// Function words that say nothing about what a passage is about; dropped from documents and queries alike.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our she so than that the their them then there these they this those to was we were what when ' +
    'where which while who whom why will with would you your'
  ).split(' '),
);

/** Made at the first use: making one loads ICU's word rules, a cost a start that never ranks need not pay. */
let words: Intl.Segmenter | undefined;

/** The words of a text as BM25 reads them: word-like segments, NFKC and lower case, function words left out. */
export function bm25Tokens(text: string): string[] {
  const out: string[] = [];
  words ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  for (const s of words.segment(text.normalize('NFKC').toLowerCase())) {
    if (s.isWordLike && !STOP_WORDS.has(s.segment)) out.push(s.segment);
  }
  return out;
}

export interface Ranked {
  /** The document's place in the list given. */
  index: number;
  score: number;
}

/**
 * The documents (each as its tokens) that share a word with the query, best first, with their BM25 scores;
 * ties keep the documents' order. IDF is the non-negative form ln(1 + (N − n + ½)/(n + ½)), so a word in
 * every document still counts a little rather than against.
 */
export function rankBm25(documents: string[][], query: string[], opts: { k1?: number; b?: number } = {}): Ranked[] {
  const k1 = opts.k1 ?? BM25_K1;
  const b = opts.b ?? BM25_B;
  const terms = [...new Set(query)];
  if (!terms.length || !documents.length) return [];
  const wanted = new Set(terms);
  // Per document, the frequency of each query term it holds; per term, how many documents hold it.
  const frequencies: Map<string, number>[] = [];
  const holding = new Map<string, number>();
  let totalLength = 0;
  for (const doc of documents) {
    totalLength += doc.length;
    const tf = new Map<string, number>();
    for (const token of doc) if (wanted.has(token)) tf.set(token, (tf.get(token) ?? 0) + 1);
    for (const term of tf.keys()) holding.set(term, (holding.get(term) ?? 0) + 1);
    frequencies.push(tf);
  }
  const n = documents.length;
  const averageLength = totalLength / n || 1;
  const idf = new Map(terms.map((t) => [t, Math.log(1 + (n - (holding.get(t) ?? 0) + 0.5) / ((holding.get(t) ?? 0) + 0.5))]));
  const ranked: Ranked[] = [];
  frequencies.forEach((tf, index) => {
    if (!tf.size) return;
    const norm = k1 * (1 - b + (b * documents[index].length) / averageLength);
    let score = 0;
    for (const [term, f] of tf) score += idf.get(term)! * ((f * (k1 + 1)) / (f + norm));
    ranked.push({ index, score });
  });
  return ranked.sort((x, y) => y.score - x.score || x.index - y.index);
}
