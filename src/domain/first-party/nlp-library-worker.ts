// The nlp library's thread (nlp-library.ts): the text and code functions, served one task at a time.
import { serveTasks } from '../../platform/task-thread';
import { loadCode, outlineCode, reviewCode } from './nlp-code';
import { classifyByTerms, extractSummary, loadText, sentimentOf } from './nlp-text';

serveTasks(
  {
    sentiment: ({ text }: { text: string }) => sentimentOf(text),
    classify: ({ text, labels, multiLabel }: { text: string; labels: { name: string; description?: string }[]; multiLabel: boolean }) =>
      classifyByTerms(text, labels, multiLabel),
    summarize: ({ text, maxSentences }: { text: string; maxSentences: number }) => extractSummary(text, maxSentences),
    review: reviewCode,
    outline: outlineCode,
  },
  () => {
    loadText();
    loadCode();
  },
);
