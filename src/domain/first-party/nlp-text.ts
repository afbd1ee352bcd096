// What a text library can honestly do without a model (docs/capabilities/nlp.md): English sentiment from
// wink-nlp's lexicon, classification by lexical similarity to labels the caller describes (BM25 weights),
// and extractive summaries (the sentences closest to the whole text's terms). Pure functions, run in the
// nlp library's thread (nlp-library.ts), each over at most TEXT_MAX_CHARS of input.
import model from 'wink-eng-lite-web-model';
import winkNLP, { type ItsFunction, type WinkMethods } from 'wink-nlp';
import bm25Vectorizer from 'wink-nlp/utilities/bm25-vectorizer';
import similarity from 'wink-nlp/utilities/similarity';

type Bow = Record<string, number>;

let nlp: WinkMethods | undefined;

/** Loads the English model once per thread: loading it is slow, and every task of the thread uses it. */
export function loadText(): WinkMethods {
  // The pipe stops at what these functions read: sentences, negation (for sentiment) and sentiment.
  nlp ??= winkNLP(model, ['sbd', 'negation', 'sentiment']);
  return nlp;
}

/** A sentence's text as listings show it: at most this many characters. */
const SENTENCE_SHOWN_CHARS = 500;
/** A sentence in an extractive summary: at most this many characters. */
const SUMMARY_SENTENCE_CHARS = 1_000;
/** Sentences listed by sentiment. */
const SENTENCES_LISTED = 100;
/** |score| below this is neutral (wink's scores run from -1 to 1; a plain statement scores 0). */
export const NEUTRAL_BAND = 0.05;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const shown = (text: string) => cut(text, SENTENCE_SHOWN_CHARS);
const round = (n: number, places = 4) => Math.round(n * 10 ** places) / 10 ** places;
export const sentimentLabel = (score: number) => (score >= NEUTRAL_BAND ? 'positive' : score <= -NEUTRAL_BAND ? 'negative' : 'neutral');

export interface SentimentResult {
  label: 'positive' | 'negative' | 'neutral';
  score: number;
  sentence_count: number;
  sentences: { index: number; text: string; score: number; label: string }[];
}

/** The text's sentiment, -1 to 1, the mean of its sentences' (wink-nlp: an English lexicon with negation and emoji). */
export function sentimentOf(text: string): SentimentResult {
  const doc = loadText().readDoc(text);
  const { its } = loadText();
  const texts = doc.sentences().out() as string[];
  const scores = doc.sentences().out(its.sentiment) as number[];
  const score = round(Number(doc.out(its.sentiment)) || 0);
  return {
    label: sentimentLabel(score),
    score,
    sentence_count: texts.length,
    sentences: texts
      .slice(0, SENTENCES_LISTED)
      .map((t, index) => ({ index, text: shown(t), score: round(scores[index] ?? 0), label: sentimentLabel(scores[index] ?? 0) })),
  };
}

/** A text's terms: stems of its words that are not stop words. Dashes and underscores separate words (`billing-issue`). */
function termsOf(text: string): string[] {
  const { its } = loadText();
  return (
    loadText()
      .readDoc(text.replace(/[-_]/g, ' '))
      .tokens()
      .filter((t) => t.out(its.type) === 'word' && !t.out(its.stopWordFlag))
      // wink's typings give its.stem a token function's name but not its parameters.
      .out(its.stem as unknown as ItsFunction<string>) as string[]
  );
}

export interface ClassifyResult {
  label: string | null;
  chosen: string[];
  scores: { label: string; score: number; matched_terms: string[] }[];
}

/**
 * Lexical classification: each label (its name and description) is compared with the text's BM25-weighted terms by
 * cosine similarity. With no label sharing a term, there is no evidence and none is chosen; multi-label chooses every
 * label scoring at least half the best.
 */
export function classifyByTerms(text: string, labels: { name: string; description?: string }[], multiLabel: boolean): ClassifyResult {
  const { its } = loadText();
  const vectorizer = bm25Vectorizer();
  const labelTerms = labels.map((l) => termsOf(`${l.name} ${l.description ?? ''}`));
  for (const terms of labelTerms) vectorizer.learn(terms);
  const textTerms = termsOf(text);
  const textBow = vectorizer.bowOf(textTerms) as unknown as Bow;
  const present = new Set(textTerms);
  const scores = labels.map((l, i) => {
    const labelBow = (vectorizer.doc(i) as unknown as { out(f: unknown): Bow }).out(its.bow);
    const score = Object.keys(textBow).length && Object.keys(labelBow).length ? similarity.bow.cosine(textBow as never, labelBow as never) : 0;
    const matched = [...new Set(labelTerms[i].filter((t) => present.has(t)))].slice(0, 20);
    return { label: l.name, score: round(Number.isFinite(score) ? score : 0), matched_terms: matched };
  });
  const ranked = [...scores].sort((a, b) => b.score - a.score);
  const best = ranked[0]?.score ?? 0;
  if (best <= 0) return { label: null, chosen: [], scores: ranked };
  const chosen = multiLabel ? ranked.filter((s) => s.score > 0 && s.score >= best / 2).map((s) => s.label) : [ranked[0].label];
  return { label: ranked[0].label, chosen, scores: ranked };
}

export interface ExtractResult {
  summary: string;
  sentence_count: number;
  extracted: { index: number; text: string; score: number }[];
}

/** Two chosen sentences closer than this (cosine of their terms) say the same thing: the later one is skipped. */
const REDUNDANT = 0.8;

/**
 * An extractive summary: each sentence's BM25-weighted terms compared (cosine) with the whole text's; the
 * `maxSentences` closest, skipping near-repeats of one already chosen, in the text's order.
 */
export function extractSummary(text: string, maxSentences: number): ExtractResult {
  const { its } = loadText();
  const sentences = (loadText().readDoc(text).sentences().out() as string[]).map((s) => s.trim()).filter(Boolean);
  if (sentences.length === 0) return { summary: '', sentence_count: 0, extracted: [] };
  const vectorizer = bm25Vectorizer();
  const terms = sentences.map((s) => termsOf(s));
  for (const t of terms) vectorizer.learn(t);
  const whole = vectorizer.bowOf(terms.flat()) as unknown as Bow;
  const bows = sentences.map((_, i) => (vectorizer.doc(i) as unknown as { out(f: unknown): Bow }).out(its.bow));
  const cosine = (a: Bow, b: Bow) => (Object.keys(a).length && Object.keys(b).length ? similarity.bow.cosine(a as never, b as never) : 0);
  const ranked = sentences.map((_, i) => ({ index: i, score: cosine(bows[i], whole) })).sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen: { index: number; score: number }[] = [];
  for (const candidate of ranked) {
    if (chosen.length >= maxSentences) break;
    if (chosen.some((c) => cosine(bows[c.index], bows[candidate.index]) >= REDUNDANT)) continue;
    chosen.push(candidate);
  }
  chosen.sort((a, b) => a.index - b.index);
  const extracted = chosen.map((c) => ({ index: c.index, text: shown(sentences[c.index]), score: round(c.score) }));
  return { summary: chosen.map((c) => cut(sentences[c.index], SUMMARY_SENTENCE_CHARS)).join(' '), sentence_count: sentences.length, extracted };
}
