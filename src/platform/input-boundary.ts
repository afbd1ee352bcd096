// Where input enters (REST bodies, path and query parameters, GraphQL documents and variables over every
// transport), one check before anything recursive runs or anything reaches the database: JSON no deeper
// than MAX_JSON_DEPTH, documents no deeper than MAX_DOCUMENT_DEPTH, and text PostgreSQL can store (no NUL
// character, no lone UTF-16 surrogate, in values and in object keys alike).
import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';
import { ValidationFailed, type FieldError } from './errors';

/** Levels of nested arrays and objects a JSON input may have (the value itself is level 0). */
export const MAX_JSON_DEPTH = 32;
/** Levels of nested braces, brackets and parentheses a GraphQL document may have. */
export const MAX_DOCUMENT_DEPTH = 64;

/** What is wrong with a string the database would refuse, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!text.isWellFormed()) return 'must not contain a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff)';
  return undefined;
}

/** A value waiting to be checked: where it sits is its parent's place and its key, spelled out only for a problem. */
interface Pending {
  value: unknown;
  parent: Pending | null;
  key: string | number;
  depth: number;
}

/** `key` under `base`, dot-separated ('' is the top). */
const under = (base: string, key: string | number) => (base === '' ? String(key) : `${base}.${key}`);

/** Where a pending value sits, from `base` (the caller's path); its parents are at most MAX_JSON_DEPTH deep. */
const pathOf = (item: Pending, base: string): string => (item.parent ? under(pathOf(item.parent, base), item.key) : base);

/**
 * The first problem of a JSON value from outside, found without recursion: nested deeper than
 * MAX_JSON_DEPTH, or a string (or key) the database cannot store. `path` names where it sits. Paths are
 * spelled only for the problem found (a clean input, the usual case, allocates none).
 */
export function inputProblem(value: unknown, path = ''): FieldError | undefined {
  const stack: Pending[] = [{ value, parent: null, key: '', depth: 0 }];
  while (stack.length) {
    const item = stack.pop()!;
    const v = item.value;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { path: pathOf(item, path), message: problem };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (item.depth >= MAX_JSON_DEPTH) return { path: pathOf(item, path), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: item, key: i, depth: item.depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const problem = textProblem(keys[i]);
      if (problem) return { path: under(pathOf(item, path), keys[i].replace(/[\u0000\ud800-\udfff]/g, '?')), message: `has a key that ${problem}` };
      stack.push({ value: (v as Record<string, unknown>)[keys[i]], parent: item, key: keys[i], depth: item.depth + 1 });
    }
  }
  return undefined;
}

/** Throws 400 validation_failed naming the field when a value from outside fails the boundary. */
export function checkInput(value: unknown, path = ''): void {
  const problem = inputProblem(value, path);
  if (problem) throw new ValidationFailed(problem);
}

/**
 * How deeply a GraphQL document nests braces, brackets and parentheses, outside strings and comments,
 * counted without parsing (graphql-js parses recursively and overflows the stack at a few thousand).
 */
export function documentDepth(text: string): number {
  let depth = 0;
  let max = 0;
  // The scan jumps from one character that matters to the next with a regular expression, which V8 runs as
  // machine code: a character at a time was slow on large documents, on every entry's hot path.
  const marks = /[#"{}[\]()]/g;
  for (let m = marks.exec(text); m; m = marks.exec(text)) {
    const i = m.index;
    const ch = text.charCodeAt(i);
    if (ch === 0x23 /* # */) {
      marks.lastIndex = skipTo(text, /[\n\r]/g, i + 1);
    } else if (ch === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        // A block string ends at the next unescaped triple quote (\""" is an escaped one).
        let end = text.indexOf('"""', i + 3);
        while (end > 0 && text.charCodeAt(end - 1) === 0x5c /* \ */) end = text.indexOf('"""', end + 3);
        marks.lastIndex = end < 0 ? text.length : end + 3;
      } else {
        // A string ends at its closing quote or the line's end; a backslash escapes the character after it.
        const ends = /["\n\\]/g;
        let at = i + 1;
        for (;;) {
          at = skipTo(text, ends, at);
          if (at < text.length && text.charCodeAt(at) === 0x5c) at += 2;
          else break;
        }
        marks.lastIndex = at + 1;
      }
    } else if (ch === 0x7b || ch === 0x5b || ch === 0x28) {
      depth++;
      if (depth > max) max = depth;
    } else {
      depth--;
    }
  }
  return max;
}

/** The index of the next match of the global expression `re` at or after `from`, or the text's length. */
function skipTo(text: string, re: RegExp, from: number): number {
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? m.index : text.length;
}

/** The document's problem at the boundary (too deep to parse safely, or text that cannot be stored). */
export function documentProblem(text: string): string | undefined {
  if (documentDepth(text) > MAX_DOCUMENT_DEPTH) return `The document is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`;
  const problem = textProblem(text);
  return problem ? `The document ${problem}` : undefined;
}

/**
 * A validation rule: string literals in a document (whose escapes, `\u0000` or `\ud800`, make text the
 * database cannot store) are refused like the same text in variables.
 */
export function StorableTextRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      const problem = textProblem(node.value);
      if (problem) context.reportError(new GraphQLError(`A string literal ${problem}`, { nodes: node }));
    },
  };
}
