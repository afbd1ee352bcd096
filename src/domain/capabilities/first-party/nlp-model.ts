// nlp-model.ts's old path, for src/domain/execution's import alone: it is src/domain/first-party/nlp-model.ts.
// This file goes when execution names that.
export { ModelFailed } from '../../first-party/nlp-model';
