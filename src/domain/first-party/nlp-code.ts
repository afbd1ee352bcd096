// What compilers and linters can honestly say about code without a model (docs/capabilities/nlp.md):
// TypeScript's diagnostics of a TypeScript or JavaScript source checked alone, in memory, ESLint's
// recommended rules on JavaScript, and a structural outline from TypeScript's syntax tree. Pure functions,
// run in the nlp library's thread (nlp-library.ts).
import fs from 'node:fs';
import path from 'node:path';
import { Linter } from 'eslint';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import ts from 'typescript';

/** The languages the library reads (the model reads any of CODE_LANGUAGES). */
export const LIBRARY_LANGUAGES = ['typescript', 'tsx', 'javascript', 'jsx'] as const;
export type LibraryLanguage = (typeof LIBRARY_LANGUAGES)[number];

const FILE_OF: Record<LibraryLanguage, string> = { typescript: '/input.ts', tsx: '/input.tsx', javascript: '/input.js', jsx: '/input.jsx' };
const isJs = (language: LibraryLanguage) => language === 'javascript' || language === 'jsx';

// The source is checked alone: every import is `any` (no package is there to resolve), and Node's and JSX's
// ambient names exist, so what is reported is about the code itself, not the missing environment. The
// browser's come with the DOM library.
const ENV_FILE = '/env.d.ts';
const ENV = `declare module '*';
declare var require: any;
declare var module: any;
declare var exports: any;
declare var process: any;
declare var Buffer: any;
declare var global: any;
declare var __dirname: string;
declare var __filename: string;
declare namespace JSX { interface IntrinsicElements { [name: string]: any } interface Element { [key: string]: any } }
`;

const COMMON_OPTIONS: ts.CompilerOptions = {
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: [],
  noResolve: true,
  jsx: ts.JsxEmit.Preserve,
  strict: true,
  noImplicitReturns: true,
  allowUnusedLabels: false,
  skipLibCheck: true,
};

// TypeScript checks the lint-like rules itself; JavaScript gets them from ESLint instead (not both).
const TS_OPTIONS: ts.CompilerOptions = {
  ...COMMON_OPTIONS,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noFallthroughCasesInSwitch: true,
  allowUnreachableCode: false,
};
// JavaScript declares no types: an untyped parameter is the language, not a finding.
const JS_OPTIONS: ts.CompilerOptions = { ...COMMON_OPTIONS, allowJs: true, checkJs: true, noImplicitAny: false };

/** Diagnostics that are findings of style or dead code rather than errors the program would hit. */
const LINT_LIKE_CODES = new Set([6133, 6138, 6192, 6196, 6198, 6199, 6205, 7027, 7028, 7029, 7030]);

/** The library files, parsed once per thread: they are the same for every check. */
const libFiles = new Map<string, ts.SourceFile>();
let libDir: string | undefined;

function hostOf(own: Map<string, string>): ts.CompilerHost {
  libDir ??= path.dirname(ts.getDefaultLibFilePath(COMMON_OPTIONS));
  const isLib = (f: string) => f.startsWith(`${libDir}${path.sep}`) && /^lib\.[a-z0-9.]+\.d\.ts$/.test(path.basename(f));
  return {
    getSourceFile(fileName, languageVersion) {
      const text = own.get(fileName);
      if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
      if (!isLib(fileName)) return undefined;
      let file = libFiles.get(fileName);
      if (!file) {
        file = ts.createSourceFile(fileName, fs.readFileSync(fileName, 'utf8'), languageVersion, false);
        libFiles.set(fileName, file);
      }
      return file;
    },
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    writeFile: () => {},
    getCurrentDirectory: () => '/',
    getDirectories: () => [],
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (f) => own.has(f) || (isLib(f) && fs.existsSync(f)),
    readFile: (f) => own.get(f) ?? (isLib(f) ? fs.readFileSync(f, 'utf8') : undefined),
  };
}

/** Loads TypeScript's and ESLint's modules and the library files (the first check's cost), once per thread. */
export function loadCode(): void {
  reviewCode({ source: 'export const ready: number = 1;\n', language: 'typescript' });
  reviewCode({ source: 'export const ready = 1;\n', language: 'javascript' });
}

export interface Finding {
  source: 'compiler' | 'lint';
  severity: 'error' | 'warning' | 'info';
  rule: string;
  line: number | null;
  column: number | null;
  message: string;
}

export interface ReviewResult {
  findings: Finding[];
  /** Findings beyond FINDINGS_LISTED are counted, not listed. */
  total: number;
  counts: { error: number; warning: number; info: number };
  lines: number;
  checks: string[];
}

const FINDINGS_LISTED = 200;
const MESSAGE_CHARS = 500;
const clip = (text: string) => (text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS - 1)}…` : text);

function compilerFindings(source: string, language: LibraryLanguage): { findings: Finding[]; isModule: boolean } {
  const file = FILE_OF[language];
  const program = ts.createProgram({
    rootNames: [file, ENV_FILE],
    options: isJs(language) ? JS_OPTIONS : TS_OPTIONS,
    host: hostOf(
      new Map([
        [file, source],
        [ENV_FILE, ENV],
      ]),
    ),
  });
  const sf = program.getSourceFile(file)!;
  const syntactic = program.getSyntacticDiagnostics(sf);
  // A source that does not parse is reported as such; its types would only add noise.
  const diagnostics = syntactic.length ? syntactic : program.getSemanticDiagnostics(sf);
  const findings = diagnostics.map((d): Finding => {
    const at = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : undefined;
    const lintLike = LINT_LIKE_CODES.has(d.code) || d.reportsUnnecessary;
    const severity = lintLike
      ? 'warning'
      : d.category === ts.DiagnosticCategory.Error
        ? 'error'
        : d.category === ts.DiagnosticCategory.Warning
          ? 'warning'
          : 'info';
    return {
      source: 'compiler',
      severity,
      rule: `TS${d.code}`,
      line: at ? at.line + 1 : null,
      column: at ? at.character + 1 : null,
      message: clip(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    };
  });
  return { findings, isModule: ts.isExternalModule(sf) };
}

let recommended: Linter.RulesRecord | undefined;
let linter: Linter | undefined;

function lintFindings(source: string, language: LibraryLanguage, isModule: boolean): Finding[] {
  // ESLint's recommended rules (those @eslint/js's `recommended` config turns on), but `no-undef`: the
  // compiler already reports unknown names, knowing the ambient ones.
  recommended ??= Object.fromEntries(
    [...builtinRules].filter(([name, rule]) => rule.meta?.docs?.recommended && name !== 'no-undef').map(([name]) => [name, 'error' as const]),
  );
  linter ??= new Linter({ configType: 'flat' });
  const filename = FILE_OF[language].slice(1);
  const messages = linter.verify(
    source,
    [
      {
        files: ['**/*.js', '**/*.jsx'],
        languageOptions: { ecmaVersion: 'latest', sourceType: isModule ? 'module' : 'commonjs', parserOptions: { ecmaFeatures: { jsx: language === 'jsx' } } },
        rules: recommended,
      },
    ],
    { filename },
  );
  return messages.map((m): Finding => ({
    source: 'lint',
    // The source did not parse for ESLint (the compiler's findings say where); its rules did not run.
    severity: m.fatal ? 'info' : 'warning',
    rule: m.ruleId ?? 'parse',
    line: m.line ?? null,
    column: m.column ?? null,
    message: clip(m.fatal ? `ESLint could not parse the source, so its rules did not run: ${m.message}` : m.message),
  }));
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 };

/** TypeScript's diagnostics (and ESLint's findings on JavaScript), most severe first, then by position. */
export function reviewCode({ source, language }: { source: string; language: LibraryLanguage }): ReviewResult {
  const compiled = compilerFindings(source, language);
  const all = isJs(language) ? [...compiled.findings, ...lintFindings(source, language, compiled.isModule)] : compiled.findings;
  all.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of all) counts[f.severity] += 1;
  return {
    findings: all.slice(0, FINDINGS_LISTED),
    total: all.length,
    counts,
    lines: lineCount(source),
    checks: isJs(language) ? [`typescript ${ts.version} (checkJs)`, `eslint ${Linter.version} recommended`] : [`typescript ${ts.version} (strict)`],
  };
}

/** Lines as editors count them: a final line break ends the last line, it does not start another. */
const lineCount = (source: string) => Math.max(1, source.split('\n').length - (source.endsWith('\n') ? 1 : 0));

// ---- The outline -------------------------------------------------------------------------------------

export type OutlineKind = 'function' | 'class' | 'method' | 'constructor' | 'property' | 'accessor' | 'interface' | 'type' | 'enum' | 'variable' | 'namespace';

export interface OutlineEntry {
  kind: OutlineKind;
  name: string;
  /** The enclosing class or namespace's name, for members. */
  parent: string | null;
  line: number;
  end_line: number;
  exported: boolean;
  /** Parameters and return type as written, or a variable's declared type. */
  signature: string | null;
}

export interface OutlineImport {
  module: string;
  names: string[];
  line: number;
}

export interface OutlineExport {
  name: string;
  /** Re-exported from this module, if so. */
  from: string | null;
  line: number;
}

export interface Outline {
  lines: number;
  syntax_errors: number;
  imports: OutlineImport[];
  exports: OutlineExport[];
  declarations: OutlineEntry[];
  summary: string;
}

const ENTRIES_LISTED = 500;
const SIGNATURE_CHARS = 200;

/** The structure of a TypeScript or JavaScript source from its syntax tree: imports, exports, declarations (no types are checked). */
export function outlineCode({ source, language }: { source: string; language: LibraryLanguage }): Outline {
  const file = FILE_OF[language];
  const kind = { typescript: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, javascript: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX }[language];
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const text = (node: ts.Node) => node.getText(sf).replace(/\s+/g, ' ').trim();
  const clipSig = (s: string) => (s.length > SIGNATURE_CHARS ? `${s.slice(0, SIGNATURE_CHARS - 1)}…` : s);
  const imports: OutlineImport[] = [];
  const exports: OutlineExport[] = [];
  const declarations: OutlineEntry[] = [];
  const exportedNames = new Set<string>();

  const signatureOf = (node: ts.SignatureDeclaration): string => {
    const params = `(${node.parameters.map(text).join(', ')})`;
    return clipSig(node.type ? `${params}: ${text(node.type)}` : params);
  };
  const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const isDefault = (node: ts.Node) => ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  const add = (entry: Omit<OutlineEntry, 'line' | 'end_line'>, node: ts.Node) => {
    if (declarations.length < ENTRIES_LISTED) declarations.push({ ...entry, line: lineOf(node.getStart(sf)), end_line: lineOf(node.end) });
  };
  const nameOf = (name: ts.PropertyName | ts.BindingName | undefined): string => (name ? text(name) : '(anonymous)');

  const members = (node: ts.ClassLikeDeclaration, parent: string) => {
    for (const m of node.members) {
      if (ts.isConstructorDeclaration(m)) add({ kind: 'constructor', name: 'constructor', parent, exported: false, signature: signatureOf(m) }, m);
      else if (ts.isMethodDeclaration(m)) add({ kind: 'method', name: nameOf(m.name), parent, exported: false, signature: signatureOf(m) }, m);
      else if (ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m))
        add({ kind: 'accessor', name: nameOf(m.name), parent, exported: false, signature: signatureOf(m) }, m);
      else if (ts.isPropertyDeclaration(m))
        add({ kind: 'property', name: nameOf(m.name), parent, exported: false, signature: m.type ? clipSig(text(m.type)) : null }, m);
    }
  };

  const requireOf = (init: ts.Expression | undefined): string | undefined =>
    init &&
    ts.isCallExpression(init) &&
    ts.isIdentifier(init.expression) &&
    init.expression.text === 'require' &&
    init.arguments.length === 1 &&
    ts.isStringLiteralLike(init.arguments[0])
      ? init.arguments[0].text
      : undefined;

  /** `module.exports = …`, `module.exports.x = …`, `exports.x = …`: the name exported, or undefined. */
  const commonJsExport = (target: ts.Expression): string | undefined => {
    const t = text(target);
    if (t === 'module.exports') return 'default';
    const m = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(t);
    return m?.[1];
  };

  const visit = (statements: ts.NodeArray<ts.Statement>, parent: string | null, depth: number) => {
    for (const s of statements) {
      const exported = isExported(s);
      if (ts.isImportDeclaration(s) && ts.isStringLiteralLike(s.moduleSpecifier)) {
        const names: string[] = [];
        const clause = s.importClause;
        if (clause?.name) names.push(`default as ${clause.name.text}`);
        if (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) names.push(`* as ${clause.namedBindings.name.text}`);
        if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings))
          for (const e of clause.namedBindings.elements) names.push(e.propertyName ? `${text(e.propertyName)} as ${e.name.text}` : e.name.text);
        imports.push({ module: s.moduleSpecifier.text, names, line: lineOf(s.getStart(sf)) });
      } else if (ts.isImportEqualsDeclaration(s) && ts.isExternalModuleReference(s.moduleReference) && ts.isStringLiteralLike(s.moduleReference.expression)) {
        imports.push({ module: s.moduleReference.expression.text, names: [s.name.text], line: lineOf(s.getStart(sf)) });
      } else if (ts.isExportDeclaration(s)) {
        const from = s.moduleSpecifier && ts.isStringLiteralLike(s.moduleSpecifier) ? s.moduleSpecifier.text : null;
        if (!s.exportClause) exports.push({ name: '*', from, line: lineOf(s.getStart(sf)) });
        else if (ts.isNamespaceExport(s.exportClause)) exports.push({ name: s.exportClause.name.text, from, line: lineOf(s.getStart(sf)) });
        else
          for (const e of s.exportClause.elements) {
            exports.push({ name: e.name.text, from, line: lineOf(e.getStart(sf)) });
            if (!from) exportedNames.add(e.propertyName ? text(e.propertyName) : e.name.text);
          }
      } else if (ts.isExportAssignment(s)) {
        exports.push({ name: s.isExportEquals ? 'export=' : 'default', from: null, line: lineOf(s.getStart(sf)) });
        if (ts.isIdentifier(s.expression)) exportedNames.add(s.expression.text);
      } else if (ts.isFunctionDeclaration(s)) {
        const name = s.name?.text ?? 'default';
        add({ kind: 'function', name, parent, exported, signature: signatureOf(s) }, s);
        if (exported && !parent) exports.push({ name: isDefault(s) ? 'default' : name, from: null, line: lineOf(s.getStart(sf)) });
      } else if (ts.isClassDeclaration(s)) {
        const name = s.name?.text ?? 'default';
        add({ kind: 'class', name, parent, exported, signature: null }, s);
        members(s, parent ? `${parent}.${name}` : name);
        if (exported && !parent) exports.push({ name: isDefault(s) ? 'default' : name, from: null, line: lineOf(s.getStart(sf)) });
      } else if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) {
        const kind = ts.isInterfaceDeclaration(s) ? 'interface' : ts.isTypeAliasDeclaration(s) ? 'type' : 'enum';
        add({ kind, name: s.name.text, parent, exported, signature: null }, s);
        if (exported && !parent) exports.push({ name: s.name.text, from: null, line: lineOf(s.getStart(sf)) });
      } else if (ts.isModuleDeclaration(s)) {
        const name = text(s.name);
        add({ kind: 'namespace', name, parent, exported, signature: null }, s);
        if (exported && !parent) exports.push({ name, from: null, line: lineOf(s.getStart(sf)) });
        if (s.body && ts.isModuleBlock(s.body) && depth < 3) visit(s.body.statements, parent ? `${parent}.${name}` : name, depth + 1);
      } else if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          const module = requireOf(d.initializer);
          if (module && !parent) {
            imports.push({
              module,
              names: ts.isObjectBindingPattern(d.name) ? d.name.elements.map((e) => text(e.name)) : [text(d.name)],
              line: lineOf(d.getStart(sf)),
            });
            continue;
          }
          const name = nameOf(d.name);
          const init = d.initializer;
          if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)))
            add({ kind: 'function', name, parent, exported, signature: signatureOf(init) }, d);
          else if (init && ts.isClassExpression(init)) {
            add({ kind: 'class', name, parent, exported, signature: null }, d);
            members(init, parent ? `${parent}.${name}` : name);
          } else add({ kind: 'variable', name, parent, exported, signature: d.type ? clipSig(text(d.type)) : null }, d);
          if (exported && !parent) exports.push({ name, from: null, line: lineOf(d.getStart(sf)) });
        }
      } else if (
        !parent &&
        ts.isExpressionStatement(s) &&
        ts.isBinaryExpression(s.expression) &&
        s.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken
      ) {
        const name = commonJsExport(s.expression.left);
        if (name) exports.push({ name, from: null, line: lineOf(s.getStart(sf)) });
      }
    }
  };
  visit(sf.statements, null, 0);
  for (const d of declarations) if (!d.parent && exportedNames.has(d.name)) d.exported = true;

  const syntaxErrors = (sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length ?? 0;
  const outline: Omit<Outline, 'summary'> = {
    lines: lineCount(source),
    syntax_errors: syntaxErrors,
    imports: imports.slice(0, ENTRIES_LISTED),
    exports: exports.slice(0, ENTRIES_LISTED),
    declarations,
  };
  return { ...outline, summary: describe(outline, language, ts.isExternalModule(sf)) };
}

const LANGUAGE_NAMES: Record<LibraryLanguage, string> = {
  typescript: 'TypeScript',
  tsx: 'TypeScript (TSX)',
  javascript: 'JavaScript',
  jsx: 'JavaScript (JSX)',
};

/** One factual sentence from the outline's counts. */
function describe(o: Omit<Outline, 'summary'>, language: LibraryLanguage, isModule: boolean): string {
  const top = o.declarations.filter((d) => !d.parent);
  const count = (kind: OutlineKind) => top.filter((d) => d.kind === kind).length;
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const parts = [
    [count('function'), 'function'],
    [count('class'), 'class', 'classes'],
    [count('interface'), 'interface'],
    [count('type'), 'type alias', 'type aliases'],
    [count('enum'), 'enum'],
    [count('namespace'), 'namespace'],
    [count('variable'), 'variable'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, one, many]) => plural(n as number, one as string, many as string | undefined));
  const modules = new Set(o.imports.map((i) => i.module)).size;
  const what = `A ${LANGUAGE_NAMES[language]} ${isModule ? 'module' : 'script'} of ${plural(o.lines, 'line')}`;
  const declares = parts.length ? `declaring ${parts.join(', ')} at the top level` : 'with no top-level declarations';
  const links = `${modules ? `importing ${plural(modules, 'module')}` : 'importing nothing'} and ${o.exports.length ? `exporting ${plural(o.exports.length, 'name')}` : 'exporting nothing'}`;
  const broken = o.syntax_errors ? `; it has ${plural(o.syntax_errors, 'syntax error')}` : '';
  return `${what}, ${declares}, ${links}${broken}.`;
}
