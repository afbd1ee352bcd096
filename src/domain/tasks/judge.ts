// How a delegate's result is judged against its task's success criteria: one documented, deterministic rule per
// criterion, so the same result always gets the same verdict: `path op value` compares, a bare dotted path must hold
// a value that is not empty, anything else must appear in the result's JSON, ignoring case (docs/collaboration.md).

export interface Verdict {
  criterion: string;
  met: boolean;
  rule: 'comparison' | 'present' | 'contains';
  /** What was found, for the delegate to see why. */
  detail: string;
}

const PATH = /^[A-Za-z_][\w-]*(?:\.[\w-]+)*$/;
const COMPARISON = /^([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*(>=|<=|==|!=|>|<)\s*(.+)$/;

function at(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function present(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function readLiteral(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.trim();
  }
}

export function judge(criterion: string, result: unknown): Verdict {
  const text = criterion.trim();
  const comparison = COMPARISON.exec(text);
  if (comparison) {
    const [, path, op, raw] = comparison;
    const found = at(result, path);
    const expected = readLiteral(raw);
    let met: boolean;
    if (typeof found === 'number' && typeof expected === 'number') {
      met = {
        '>=': found >= expected,
        '<=': found <= expected,
        '>': found > expected,
        '<': found < expected,
        '==': found === expected,
        '!=': found !== expected,
      }[op]!;
    } else if (op === '==' || op === '!=') {
      const same = JSON.stringify(found) === JSON.stringify(expected);
      met = op === '==' ? same : !same;
    } else {
      met = false;
    }
    return { criterion, met, rule: 'comparison', detail: `${path} is ${found === undefined ? 'missing' : JSON.stringify(found)}` };
  }
  if (PATH.test(text)) {
    const found = at(result, text);
    return {
      criterion,
      met: present(found),
      rule: 'present',
      detail: found === undefined ? `${text} is missing` : `${text} is ${present(found) ? 'present' : 'empty'}`,
    };
  }
  const haystack = JSON.stringify(result ?? null).toLowerCase();
  const met = haystack.includes(text.toLowerCase());
  return { criterion, met, rule: 'contains', detail: met ? 'the result contains it' : 'the result does not contain it' };
}

/** Every criterion judged; met when all are (a task without criteria is met by any result). */
export function judgeAll(criteria: readonly string[], result: unknown): { met: boolean; verdicts: Verdict[] } {
  const verdicts = criteria.map((c) => judge(c, result));
  return { met: verdicts.every((v) => v.met), verdicts };
}
