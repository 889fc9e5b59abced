/**
 * The command-line language fm accepts: a small, fully understood subset of the POSIX shell.
 *
 *   line      := statement ((';' | '&') statement)* [';' | '&']
 *   statement := pipeline (('&&' | '||') pipeline)*
 *   pipeline  := command ('|' command)*
 *   command   := (word | redirect)+            (at least one word)
 *   redirect  := [0-9] ('<' | '>' | '>>') word | [0-9] ('>&' | '<&') (digit | '-') | ('&>' | '&>>') word
 *   word      := (plain character | \c | '...' | "..." without $ or `)+
 *
 * Everything else a shell would interpret is refused with a reason, never passed on: `$`
 * (variables, `$(...)`, `$((...))`, `${...}`), backticks, `( )` (subshells, function
 * definitions, process substitution `<(...)`), `{ }`, globs `* ? [`, a leading `~` or `#`,
 * here-documents, keywords (`if`, `for`, `function`, ...) and `NAME=value` assignments.
 * Because the subset is this small, fm knows exactly which programs a line runs, and it
 * rebuilds the line for the shell itself (see plan.ts) instead of handing the user's text over.
 *
 * The same line is also parsed by mvdan/sh (the `sh-syntax` WASM build, bash grammar) and the
 * two readings must agree on the statements and redirections, or the line is refused: a
 * second, independent parser guards against a mistake in this one. (sh-syntax 0.7's JSON tree
 * only exposes statements, their spans and redirections, not command words, so it cannot be
 * the only parser.)
 */
import { ForbiddenError } from '../../errors.ts';

/** A command line (or hook) that fm will not run; the message says why. */
export class CommandRefusedError extends ForbiddenError {
  constructor(message: string) {
    super(message);
  }
}

export interface Word {
  /** The word after quote removal. */
  value: string;
  /** Index of the first character in the line. */
  start: number;
  /** Index after the last character. */
  end: number;
  /** No quotes or backslashes were involved (the word is exactly its source text). */
  plain: boolean;
  /** The unquoted literal text before the first quote or backslash. */
  plainPrefix: string;
}

export type RedirectOp = '<' | '>' | '>>' | '&>' | '&>>' | '>&' | '<&';

export interface Redirect {
  op: RedirectOp;
  /** The file descriptor written before the operator (undefined = the default, 0 or 1). */
  fd?: number;
  /** The file (or for `>&`/`<&` the descriptor digit or `-`). */
  target: Word;
  start: number;
  end: number;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
  /** Span of the words only (mvdan/sh's CallExpr span). */
  wordsStart: number;
  wordsEnd: number;
}

export interface Pipeline {
  commands: SimpleCommand[];
}

export interface Statement {
  /** Pipelines joined by `&&`/`||`: ops[i] joins pipelines[i] and pipelines[i + 1]. */
  pipelines: Pipeline[];
  ops: Array<'&&' | '||'>;
  /** Ended with `&`. */
  background: boolean;
  start: number;
  /** End of the last token of the statement (without the terminator). */
  contentEnd: number;
  /** End including the `;` or `&` terminator, if any. */
  end: number;
}

export interface CommandLine {
  source: string;
  statements: Statement[];
}

/** The longest command line fm accepts. */
export const MAX_LINE_LENGTH = 16 * 1024;

const KEYWORDS = new Set([
  '!',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'select',
  'function',
  'in',
  'time',
  'coproc',
  '[[',
  ']]',
  '{',
  '}',
]);

type Token = { kind: 'word'; word: Word } | { kind: 'op'; op: string; fd?: number; start: number; end: number };

function refuse(message: string): never {
  throw new CommandRefusedError(message);
}

/** Why a `$` at `line[i]` is refused, in the user's terms. */
function dollarReason(line: string, i: number): string {
  const next = line[i + 1] ?? '';
  if (line.startsWith('$((', i)) return 'arithmetic expansion $((...)) is not supported';
  if (next === '(') return 'command substitution $(...) is not supported';
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the message names the shell syntax
  if (next === '{') return 'parameter expansion ${...} is not supported';
  if (next === "'" || next === '"') return 'ANSI-C and locale quoting ($\'...\', $"...") are not supported';
  if (next === '[') return 'arithmetic expansion $[...] is not supported';
  return "variables ($NAME) are not expanded: fm never substitutes text into a command; quote a literal $ with '...'";
}

const OPERATORS = ['&&', '||', '|&', ';;', '&>>', '&>', '<<<', '<<', '<>', '<(', '>(', '<&', '>>', '>|', '>&', ';', '&', '|', '<', '>', '(', ')'];
const OP_START = new Set([';', '&', '|', '<', '>', '(', ')']);

function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  const n = line.length;
  let i = 0;
  while (i < n) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    // A descriptor number directly before a redirection operator: 2>file, 2>&1.
    const fdMatch = /^(\d+)(?=[<>])/.exec(line.slice(i, i + 12));
    if (fdMatch) {
      if (fdMatch[1].length > 1) refuse('file descriptors above 9 are not supported');
      const op = readOperator(line, i + 1);
      tokens.push({ kind: 'op', op, fd: Number(fdMatch[1]), start: i, end: i + 1 + op.length });
      i += 1 + op.length;
      continue;
    }
    if (OP_START.has(c)) {
      const op = readOperator(line, i);
      tokens.push({ kind: 'op', op, start: i, end: i + op.length });
      i += op.length;
      continue;
    }
    const word = readWord(line, i);
    tokens.push({ kind: 'word', word });
    i = word.end;
  }
  return tokens;
}

function readOperator(line: string, i: number): string {
  const op = OPERATORS.find((o) => line.startsWith(o, i));
  switch (op) {
    case undefined:
      return refuse(`unexpected character "${line[i]}"`);
    case '|&':
      return refuse('|& is not supported; use 2>&1 | instead');
    case ';;':
      return refuse('syntax error near ";;"');
    case '<<':
    case '<<<':
      return refuse('here-documents and here-strings (<<, <<<) are not supported');
    case '<>':
      return refuse('read-write redirection (<>) is not supported');
    case '>|':
      return refuse('>| is not supported; use >');
    case '<(':
    case '>(':
      return refuse('process substitution <(...) and >(...) is not supported');
    case '(':
    case ')':
      return refuse('subshells, function definitions and other ( ) syntax are not supported');
    default:
      return op;
  }
}

function readWord(line: string, start: number): Word {
  const n = line.length;
  let i = start;
  let value = '';
  let plain = true;
  let plainPrefix = '';
  const literal = (s: string) => {
    value += s;
    if (plain) plainPrefix += s;
  };
  const quoted = (s: string) => {
    value += s;
    plain = false;
  };
  while (i < n) {
    const c = line[i];
    if (c === ' ' || c === '\t' || OP_START.has(c)) break;
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) refuse("syntax error: a ' quote is not closed");
      quoted(line.slice(i + 1, close));
      i = close + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let s = '';
      for (;;) {
        if (j >= n) refuse('syntax error: a " quote is not closed');
        const d = line[j];
        if (d === '"') break;
        if (d === '$') refuse(dollarReason(line, j));
        if (d === '`') refuse('command substitution with backticks (`...`) is not supported');
        if (d === '\\' && j + 1 < n && '$`"\\'.includes(line[j + 1])) {
          s += line[j + 1];
          j += 2;
          continue;
        }
        s += d;
        j++;
      }
      quoted(s);
      i = j + 1;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= n) refuse('syntax error: the line ends with a backslash');
      quoted(line[i + 1]);
      i += 2;
      continue;
    }
    if (c === '$') refuse(dollarReason(line, i));
    if (c === '`') refuse('command substitution with backticks (`...`) is not supported');
    if (c === '*' || c === '?' || c === '[' || c === ']') {
      refuse(`"${c}" is a glob or test character and fm does not expand patterns; quote it ('${c}') to pass it as it is`);
    }
    if (c === '{' || c === '}') refuse('braces ({ } for groups or brace expansion) are not supported; quote them to pass them as they are');
    if (i === start && c === '~') refuse('~ is not expanded; name paths relative to the current folder');
    if (i === start && c === '#') refuse('comments (#) are not supported; quote a literal #');
    literal(c);
    i++;
  }
  return { value, start, end: i, plain, plainPrefix };
}

/** Parses a command line with fm's own parser (no cross-check; see `parseCommandLine`). */
export function parseSubset(line: string): CommandLine {
  if (line.length > MAX_LINE_LENGTH) refuse(`the command line is longer than ${MAX_LINE_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line)) refuse('the command line must be a single line without control characters');
  const tokens = tokenize(line);
  let pos = 0;
  const peek = () => tokens[pos];
  const statements: Statement[] = [];

  const parseCommand = (): SimpleCommand => {
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      const t = peek();
      if (!t) break;
      if (t.kind === 'word') {
        words.push(t.word);
        pos++;
        continue;
      }
      if (!['<', '>', '>>', '&>', '&>>', '>&', '<&'].includes(t.op)) break;
      pos++;
      const target = peek();
      if (target?.kind !== 'word') refuse(`syntax error: "${t.op}" needs a file name after it`);
      pos++;
      const op = t.op as RedirectOp;
      if ((op === '&>' || op === '&>>') && t.fd !== undefined) refuse(`syntax error near "${t.fd}${op}"`);
      if ((op === '>&' || op === '<&') && !/^(\d|-)$/.test(target.word.value)) {
        refuse(`"${op}${target.word.value}" is not supported: duplicate a descriptor (2>&1) or redirect to a file (> file 2>&1)`);
      }
      redirects.push({ op, fd: t.fd, target: target.word, start: t.start, end: target.word.end });
    }
    if (words.length === 0) {
      const t = peek();
      refuse(t ? `syntax error near "${t.kind === 'op' ? t.op : t.word.value}"` : 'syntax error: a command is missing');
    }
    return { words, redirects, wordsStart: words[0].start, wordsEnd: words[words.length - 1].end };
  };

  const parsePipeline = (): Pipeline => {
    const commands = [parseCommand()];
    for (let t = peek(); t && t.kind === 'op' && t.op === '|'; t = peek()) {
      pos++;
      commands.push(parseCommand());
    }
    return { commands };
  };

  while (pos < tokens.length) {
    const first = peek();
    const start = first.kind === 'word' ? first.word.start : first.start;
    const pipelines = [parsePipeline()];
    const ops: Statement['ops'] = [];
    for (let t = peek(); t && t.kind === 'op' && (t.op === '&&' || t.op === '||'); t = peek()) {
      pos++;
      ops.push(t.op as '&&' | '||');
      pipelines.push(parsePipeline());
    }
    const last = tokens[pos - 1];
    const contentEnd = last.kind === 'word' ? last.word.end : last.end;
    const term = peek();
    let background = false;
    let end = contentEnd;
    if (term) {
      if (term.kind !== 'op' || (term.op !== ';' && term.op !== '&')) {
        refuse(`syntax error near "${term.kind === 'op' ? term.op : term.word.value}"`);
      }
      background = term.op === '&';
      end = term.end;
      pos++;
    }
    statements.push({ pipelines, ops, background, start, contentEnd, end });
  }
  if (statements.length === 0) refuse('the command line is empty');

  for (const st of statements) {
    for (const p of st.pipelines) {
      for (const cmd of p.commands) {
        const w = cmd.words[0];
        if (w.plain && KEYWORDS.has(w.value)) refuse(`shell keywords such as "${w.value}" (compound commands) are not supported`);
        if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(w.plainPrefix)) refuse('variable assignments (NAME=value) are not supported');
      }
    }
  }
  return { source: line, statements };
}

/** All simple commands of a line, in order. */
export function commandsOf(line: CommandLine): SimpleCommand[] {
  return line.statements.flatMap((s) => s.pipelines.flatMap((p) => p.commands));
}
