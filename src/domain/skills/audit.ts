// The built-in `skill-audit` capability (spec §1, security group): what a skill's source reaches for —
// the network, subprocesses, the filesystem, dynamic code, the environment — found line by line by
// per-runtime rules, with its declared runtime and entrypoint and its size. Nothing is run: the same
// content always gets the same report.
import type { DbTx } from '../../db/database';
import { Checks } from '../../platform/validate';
import type { Ctx } from '../context';
import type { SkillContent } from './skill-md';
import { contentHash, RUNTIMES, SOURCE_MAX_BYTES, viewSkill, type Runtime } from './skills';

export type FindingCategory = 'network' | 'subprocess' | 'filesystem' | 'dynamic_code' | 'environment';
type Severity = 'low' | 'medium' | 'high';

const SEVERITY: Record<FindingCategory, Severity> = {
  network: 'medium',
  filesystem: 'medium',
  environment: 'low',
  subprocess: 'high',
  dynamic_code: 'high',
};

interface Rule {
  id: string;
  category: FindingCategory;
  pattern: RegExp;
}

const JS: Rule[] = [
  { id: 'js.fetch', category: 'network', pattern: /\bfetch\s*\(|\bXMLHttpRequest\b|\bnew\s+WebSocket\s*\(/ },
  {
    id: 'js.net-module',
    category: 'network',
    pattern: /(?:require\(\s*|from\s+|import\s+)['"](?:node:)?(?:https?|net|tls|dgram|http2|undici|axios|node-fetch|ws)['"]/,
  },
  { id: 'js.child-process', category: 'subprocess', pattern: /['"](?:node:)?child_process['"]|\b(?:execSync|execFileSync|spawnSync)\s*\(/ },
  { id: 'js.fs-module', category: 'filesystem', pattern: /(?:require\(\s*|from\s+|import\s+)['"](?:node:)?fs(?:\/promises)?['"]/ },
  {
    id: 'js.eval',
    category: 'dynamic_code',
    pattern: /\beval\s*\(|\bnew\s+Function\s*\(|['"](?:node:)?vm['"]|\bimport\s*\(\s*[^'"\s)]|\brequire\s*\(\s*[^'"\s)]/,
  },
  { id: 'js.env', category: 'environment', pattern: /\bprocess\.env\b/ },
];

const RULES: Record<Runtime, Rule[]> = {
  python: [
    { id: 'py.http', category: 'network', pattern: /\b(?:import|from)\s+(?:requests|urllib3?|httpx|aiohttp|socket|http\.client|ftplib|smtplib|websockets?)\b/ },
    {
      id: 'py.subprocess',
      category: 'subprocess',
      pattern: /\b(?:import\s+subprocess|from\s+subprocess\b|subprocess\.|os\.(?:system|popen|exec\w*|spawn\w*|fork)\s*\(|pty\.spawn)/,
    },
    {
      id: 'py.files',
      category: 'filesystem',
      pattern: /\bopen\s*\(|\bos\.(?:remove|unlink|rmdir|removedirs|makedirs|mkdir|rename|replace|chmod|chown)\s*\(|\bshutil\.|\bpathlib\b/,
    },
    { id: 'py.eval', category: 'dynamic_code', pattern: /\b(?:eval|exec|compile|__import__)\s*\(|\bimportlib\.|\bpickle\.loads?\s*\(|\bmarshal\.loads\s*\(/ },
    { id: 'py.env', category: 'environment', pattern: /\bos\.(?:environ|getenv)\b/ },
  ],
  nodejs: JS,
  deno: [
    ...JS,
    { id: 'deno.net', category: 'network', pattern: /\bDeno\.(?:connect|connectTls|listen|serve)\b/ },
    { id: 'deno.run', category: 'subprocess', pattern: /\bDeno\.(?:run|Command)\b/ },
    {
      id: 'deno.files',
      category: 'filesystem',
      pattern: /\bDeno\.(?:readFile|readTextFile|writeFile|writeTextFile|remove|mkdir|open|create|rename|chmod)\w*\b/,
    },
    { id: 'deno.env', category: 'environment', pattern: /\bDeno\.env\b/ },
  ],
  docker: [
    { id: 'docker.download', category: 'network', pattern: /\b(?:curl|wget)\b|^\s*ADD\s+https?:\/\//i },
    { id: 'docker.privileged', category: 'subprocess', pattern: /--privileged\b|\/var\/run\/docker\.sock|--cap-add\b/ },
    { id: 'docker.permissions', category: 'filesystem', pattern: /\bchmod\s+(?:-R\s+)?[0-7]*7[0-7]{0,2}\b|\bchown\s+-R\b/ },
    { id: 'docker.pipe-to-shell', category: 'dynamic_code', pattern: /\|\s*(?:ba|z)?sh\b/ },
    { id: 'docker.env', category: 'environment', pattern: /^\s*(?:ENV|ARG)\s+\w*(?:KEY|SECRET|TOKEN|PASSWORD)\w*/i },
  ],
  // WebAssembly given as text (WAT): what it imports from its host.
  wasm: [
    { id: 'wasm.sockets', category: 'network', pattern: /\(import\s+"[^"]*"\s+"(?:sock_\w+|http\w*)"/ },
    { id: 'wasm.process', category: 'subprocess', pattern: /\(import\s+"[^"]*"\s+"(?:proc_\w+)"/ },
    { id: 'wasm.files', category: 'filesystem', pattern: /\(import\s+"[^"]*"\s+"(?:path_\w+|fd_(?:write|pwrite|allocate|renumber))"/ },
    { id: 'wasm.env', category: 'environment', pattern: /\(import\s+"[^"]*"\s+"environ_\w+"/ },
  ],
};

/** Whether the source defines the entrypoint's last segment (`main.run` → `run`). */
function definesEntrypoint(runtime: Runtime, source: string, entrypoint: string): boolean {
  const name =
    entrypoint
      .split(/[.:/#]/)
      .filter(Boolean)
      .pop() ?? entrypoint;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns: Record<Runtime, RegExp> = {
    python: new RegExp(`^\\s*(?:async\\s+)?def\\s+${escaped}\\b|^\\s*class\\s+${escaped}\\b|^${escaped}\\s*=`, 'm'),
    nodejs: new RegExp(`\\bfunction\\s*\\*?\\s*${escaped}\\b|\\b(?:const|let|var|class)\\s+${escaped}\\b|exports\\.${escaped}\\b|export\\s+default\\b`),
    deno: new RegExp(`\\bfunction\\s*\\*?\\s*${escaped}\\b|\\b(?:const|let|var|class)\\s+${escaped}\\b|export\\s+default\\b`),
    docker: /^\s*(?:ENTRYPOINT|CMD)\b/im,
    wasm: new RegExp(`\\(export\\s+"${escaped}"`),
  };
  return patterns[runtime].test(source);
}

export interface AuditFinding {
  category: FindingCategory | 'declaration';
  rule: string;
  severity: Severity | 'info';
  line: number | null;
  excerpt: string | null;
  message: string;
}

export interface AuditReport {
  skill_id: string | null;
  version: string | null;
  name: string | null;
  content_hash: string;
  runtime: Runtime;
  entrypoint: string;
  size_bytes: number;
  lines: number;
  findings: AuditFinding[];
  reaches: Record<FindingCategory, number>;
  risk: 'low' | 'medium' | 'high';
  summary: string;
}

const MESSAGES: Record<FindingCategory, string> = {
  network: 'reaches the network',
  subprocess: 'starts processes or escapes its sandbox',
  filesystem: 'reads or changes files',
  dynamic_code: 'runs code it builds or loads at run time',
  environment: 'reads the environment',
};

/** The report for a skill's content (what it declares and what its source reaches for). */
export function auditContent(
  content: Pick<SkillContent, 'runtime' | 'entrypoint' | 'source' | 'bundleUrl'> & Partial<SkillContent>,
  ref: { skillId: string | null; version: string | null; hash: string },
): AuditReport {
  const runtime = content.runtime as Runtime;
  const source = content.source ?? '';
  const lines = source === '' ? [] : source.split(/\r?\n/);
  const findings: AuditFinding[] = [];
  lines.forEach((text, i) => {
    for (const rule of RULES[runtime]) {
      if (!rule.pattern.test(text)) continue;
      findings.push({
        category: rule.category,
        rule: rule.id,
        severity: SEVERITY[rule.category],
        line: i + 1,
        excerpt: text.trim().slice(0, 160),
        message: MESSAGES[rule.category],
      });
    }
  });
  if (!source) {
    findings.push({
      category: 'declaration',
      rule: 'source.missing',
      severity: 'info',
      line: null,
      excerpt: null,
      message: content.bundleUrl ? `no source given: its bundle (${content.bundleUrl}) is not audited` : 'no source given: nothing to audit',
    });
  } else if (!definesEntrypoint(runtime, source, content.entrypoint)) {
    findings.push({
      category: 'declaration',
      rule: 'entrypoint.not-found',
      severity: 'info',
      line: null,
      excerpt: null,
      message: `the source does not define the entrypoint ${content.entrypoint}`,
    });
  }
  const reaches = { network: 0, subprocess: 0, filesystem: 0, dynamic_code: 0, environment: 0 } as Record<FindingCategory, number>;
  for (const f of findings) if (f.category !== 'declaration') reaches[f.category] += 1;
  const risk = reaches.subprocess || reaches.dynamic_code ? 'high' : reaches.network || reaches.filesystem ? 'medium' : 'low';
  const reached = (Object.keys(reaches) as FindingCategory[]).filter((k) => reaches[k] > 0).map((k) => MESSAGES[k]);
  return {
    skill_id: ref.skillId,
    version: ref.version,
    name: content.name || null,
    content_hash: ref.hash,
    runtime,
    entrypoint: content.entrypoint,
    size_bytes: Buffer.byteLength(source),
    lines: lines.length,
    findings,
    reaches,
    risk,
    summary: reached.length ? `${risk} risk: it ${reached.join(', ')}` : 'low risk: its source reaches for nothing outside itself',
  };
}

/**
 * `skill-audit`'s input: `{ skill_id }` (a published skill, or one's own: audited as the caller sees it), or
 * the skill inline: `{ runtime, entrypoint, source }`. Field paths are relative to `input`.
 */
export async function auditSkill(ctx: Ctx, db: DbTx, input: Record<string, unknown>): Promise<AuditReport> {
  const checks = new Checks();
  if (input.skill_id !== undefined && input.skill_id !== null) {
    const id = checks.text('skill_id', input.skill_id, { max: 64, required: true });
    checks.done();
    const view = await viewSkill(ctx, id!, db);
    const hash = contentHash(view.content);
    return auditContent(view.content, { skillId: view.skill.id, version: view.own ? view.content.version : view.skill.publishedVersion, hash });
  }
  const runtime = checks.oneOf('runtime', input.runtime, RUNTIMES);
  const entrypoint = checks.text('entrypoint', input.entrypoint, { max: 256, required: true });
  const source = checks.text('source', input.source, { max: SOURCE_MAX_BYTES, multiline: true, required: true });
  if (source && Buffer.byteLength(source) > SOURCE_MAX_BYTES) checks.fail('source', `must be at most ${SOURCE_MAX_BYTES / 1024} KiB`);
  checks.done();
  const content: SkillContent = {
    name: '',
    description: '',
    runtime: runtime!,
    entrypoint: entrypoint!,
    category: null,
    version: '',
    source: source!,
    bundleUrl: null,
    instructions: '',
    frontMatter: {},
  };
  return auditContent(content, { skillId: null, version: null, hash: contentHash(content) });
}
