// The nlp capabilities the marketplace serves itself (see ../types.ts), as its sellers' last resort
// (docs/capabilities/nlp.md). Each is a prompt and a JSON Schema for the model backend's answer
// (../nlp-model.ts); five can also be served without a backend by a library that does honestly what it can
// (../nlp-library.ts), and say which did (`method`). The other eight are not offered without a backend.
import type { FirstPartyCapability } from '../types';
import { summarize, translate, sentiment, classify } from './text';
import { codeReview, codeExplain } from './code';
import { documentDraft, contentRewrite } from './writing';
import { researchSynthesize, researchCompare } from './research';
import { arabicCultural, arabicPoetry } from './arabic';
import { agentVibe } from './agent-vibe';

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
