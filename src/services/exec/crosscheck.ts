/**
 * The second opinion: parses a line with mvdan/sh (the `sh-syntax` WASM build, bash grammar)
 * and checks that it sees the same statements, command spans and redirections as fm's own
 * parser (syntax.ts). Any disagreement refuses the line.
 */
import { CommandRefusedError, type CommandLine, type Redirect, type Statement } from './syntax.ts';

/** The subset of sh-syntax's JSON tree we read (see its processor/structs.go). */
interface ShPos {
  Offset: number;
}
interface ShNode {
  Pos: ShPos;
  End: ShPos;
}
interface ShWord extends ShNode {
  Lit: string;
}
interface ShRedirect extends ShNode {
  Op: string;
  N: { Value: string } | null;
  Word: ShWord | null;
  Hdoc: ShWord | null;
}
interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Negated: boolean;
  Background: boolean;
  Coprocess: boolean;
  Redirs: ShRedirect[];
}
interface ShFile {
  Stmts?: ShStmt[];
  Stmt?: ShStmt[];
}

type ParseFn = (text: string, options?: { keepComments?: boolean }) => Promise<unknown>;
let parser: Promise<ParseFn> | undefined;

/** Loads the WASM parser once, on first use (it costs ~50 ms). */
function loadParser(): Promise<ParseFn> {
  parser ??= import('sh-syntax').then((m) => m.parse as unknown as ParseFn);
  return parser;
}

const disagree = (what: string): never => {
  throw new CommandRefusedError(`the line is ambiguous (${what}); simplify it`);
};

/**
 * Lines that passed, so hook lines and repeated commands skip the WASM parser (~40 ms a call:
 * sh-syntax instantiates a fresh Go runtime each time). The check is deterministic.
 */
const agreed = new Set<string>();
const AGREED_MAX = 512;

/** Refuses `line` unless mvdan/sh parses it and agrees with fm's reading. */
export async function crossCheck(line: CommandLine): Promise<void> {
  // Keyed by fm's whole reading, not just the text, so only the exact agreement is remembered.
  const key = JSON.stringify(line);
  if (agreed.has(key)) return;
  await compareWithMvdan(line);
  if (agreed.size >= AGREED_MAX) agreed.clear();
  agreed.add(key);
}

async function compareWithMvdan(line: CommandLine): Promise<void> {
  let file: ShFile;
  try {
    const parse = await loadParser();
    file = (await parse(line.source, { keepComments: false })) as ShFile;
  } catch (err) {
    const e = err as Error & { Text?: string };
    if (e.name === 'ParseError' || e.name === 'SyntaxError' || e.Text !== undefined) {
      throw new CommandRefusedError(`syntax error: ${e.message}`);
    }
    throw new CommandRefusedError(`the shell parser is unavailable (${e.message}); no command can be checked`);
  }
  const stmts = file.Stmts ?? file.Stmt ?? [];
  // Offsets in sh-syntax are UTF-8 byte offsets; fm's are string indexes.
  const byteAt = byteOffsets(line.source);
  if (stmts.length !== line.statements.length) disagree(`${stmts.length} statements instead of ${line.statements.length}`);
  line.statements.forEach((ours, i) => {
    compareStatement(ours, stmts[i], byteAt);
  });
}

function compareStatement(ours: Statement, theirs: ShStmt, byteAt: (i: number) => number): void {
  if (theirs.Negated || theirs.Coprocess) disagree('negation or coprocess');
  if (theirs.Background !== ours.background) disagree('background');
  if (theirs.Pos.Offset !== byteAt(ours.start) || theirs.End.Offset !== byteAt(ours.end)) disagree('statement boundaries');
  if (!theirs.Cmd) disagree('missing command');
  const single = ours.pipelines.length === 1 && ours.pipelines[0].commands.length === 1;
  if (!single) {
    // A pipeline or an and-or list: mvdan/sh's BinaryCmd spans the whole statement body.
    if (theirs.Cmd!.Pos.Offset !== byteAt(ours.start) || theirs.Cmd!.End.Offset !== byteAt(ours.contentEnd)) disagree('command boundaries');
    if (theirs.Redirs.length !== 0) disagree('redirections');
    return;
  }
  const cmd = ours.pipelines[0].commands[0];
  if (theirs.Cmd!.Pos.Offset !== byteAt(cmd.wordsStart) || theirs.Cmd!.End.Offset !== byteAt(cmd.wordsEnd)) disagree('command words');
  if (theirs.Redirs.length !== cmd.redirects.length) disagree('number of redirections');
  cmd.redirects.forEach((r, i) => {
    compareRedirect(r, theirs.Redirs[i], byteAt);
  });
}

function compareRedirect(ours: Redirect, theirs: ShRedirect, byteAt: (i: number) => number): void {
  if (theirs.Op !== ours.op || theirs.Hdoc) disagree('redirection operator');
  const fd = theirs.N ? Number(theirs.N.Value) : undefined;
  if (fd !== ours.fd) disagree('redirection descriptor');
  const w = theirs.Word;
  if (!w || w.Pos.Offset !== byteAt(ours.target.start) || w.End.Offset !== byteAt(ours.target.end)) disagree('redirection target');
  if (ours.target.plain && w!.Lit !== ours.target.value) disagree('redirection target');
}

function byteOffsets(s: string): (i: number) => number {
  const offsets = new Array<number>(s.length + 1);
  let b = 0;
  for (let i = 0; i < s.length; i++) {
    offsets[i] = b;
    const code = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (code < 0x80) b += 1;
    else if (code < 0x800) b += 2;
    else if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      // A surrogate pair is one 4-byte character.
      offsets[i + 1] = b;
      b += 4;
      i++;
    } else b += 3;
  }
  offsets[s.length] = b;
  return (i) => offsets[i];
}
