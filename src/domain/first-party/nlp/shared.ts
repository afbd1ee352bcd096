// The bounds and schema pieces the nlp capabilities share.
import { ValidationFailed, type FieldError } from '../../../platform/errors';
import type { Services } from '../../context';
import { list, nullable, str } from '../schema';
import type { JsonSchema, ModelUsage, Served } from '../types';

// ---- Bounds ------------------------------------------------------------------------------------------

/** A text the library paths read: at most 100 KB, which keeps a task well within the library's time budget. */
export const TEXT_MAX = 100_000;
/** A text a model rewrites or translates whole: its answer must fit the answer's token budget. */
export const REWRITE_MAX = 20_000;
/** One source or item of the research capabilities, and all of them together. */
export const SOURCE_MAX = 50_000;
export const SOURCES_TOTAL_MAX = 100_000;
export const SOURCE_CODE_MAX = 100_000;

// ---- Shared pieces -----------------------------------------------------------------------------------

export const needsModel = {
  available: (s: Services) => !!s.config.llm.baseUrl && !!s.config.llm.model,
  unavailableBecause: 'it needs a model backend: set LLM_BASE_URL and LLM_MODEL',
};

export const METHOD = str('What produced the answer: the model backend, or a library when no backend is configured', { enum: ['model', 'library'] });
export const MODEL_METHOD = str('What produced the answer: the model backend', { enum: ['model'] });
export const MODEL_OR_NULL = nullable(str('The model that answered; null when a library did'));
export const MODEL = str('The model that answered');

export const strings = (description: string, extra: JsonSchema = {}) => list(str('One item'), description, extra);
export const nullableEnum = (values: string[], description: string): JsonSchema => ({ type: ['string', 'null'], enum: [...values, null], description });

export const LANGUAGE = (description: string) => str(description, { minLength: 2, maxLength: 64 });

/** The served output with the model's name and its usage. */
export function fromModel<T extends object>(model: string, usage: ModelUsage | undefined, output: T): Served {
  return { output: { method: 'model', model, ...output }, usage };
}

export function checked(errors: FieldError[]): void {
  if (errors.length) throw new ValidationFailed(errors);
}
