/**
 * fm's command-line parser (the accepted subset of the shell) and its cross-check against
 * mvdan/sh. EXEC class: shell metacharacters are fuzzed, and every line fm accepts must be
 * split into exactly the words bash and dash themselves produce.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CommandRefusedError, commandsOf, parseSubset } from '../../src/services/exec/syntax.ts';
import { parseArgv, parseChecked } from '../../src/services/exec/plan.ts';
import { crossCheck } from '../../src/services/exec/crosscheck.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const words = (line: string) => commandsOf(parseSubset(line)).map((c) => c.words.map((w) => w.value));

describe('parsing the accepted subset', () => {
  it('splits words, honouring single quotes, double quotes and backslashes', () => {
    expect(words(`ls -la "a b" 'c  d' e\\ f "x\\"y" 'it'\\''s' "\\$HOME" "\\\\" "a\\b"`)).toEqual([
      ['ls', '-la', 'a b', 'c  d', 'e f', 'x"y', "it's", '$HOME', '\\', 'a\\b'],
    ]);
    expect(words('  echo\t""  \'\' x ')).toEqual([['echo', '', '', 'x']]);
  });

  it('reads lists, and-or lists, pipes and redirections', () => {
    const line = parseSubset('a 1 | b 2>&1 && c > out; d < in || e >> log 2> err &> all &');
    expect(line.statements).toHaveLength(2);
    const [s1, s2] = line.statements;
    expect(s1.ops).toEqual(['&&']);
    expect(s1.pipelines.map((p) => p.commands.map((c) => c.words[0].value))).toEqual([['a', 'b'], ['c']]);
    expect(s1.pipelines[0].commands[1].redirects).toMatchObject([{ op: '>&', fd: 2, target: { value: '1' } }]);
    expect(s2.background).toBe(true);
    expect(s2.ops).toEqual(['||']);
    expect(s2.pipelines[1].commands[0].redirects.map((r) => `${r.fd ?? ''}${r.op}${r.target.value}`)).toEqual(['>>log', '2>err', '&>all']);
  });

  const refusals: Array<[string, RegExp]> = [
    ['$(id)', /command substitution/],
    ['echo "$(id)"', /command substitution/],
    ['`id`', /backticks/],
    ['echo "`id`"', /backticks/],
    ['echo $HOME', /variables/],
    ['echo "$HOME"', /variables/],
    ['echo ${PATH}', /parameter expansion/],
    ['echo $((1+2))', /arithmetic/],
    ['echo $[1+2]', /arithmetic/],
    ["echo $'\\x41'", /ANSI-C/],
    ['cat <(id)', /process substitution/],
    ['tee >(id)', /process substitution/],
    ['(id)', /subshells/],
    ['f() { id; }', /function definitions/],
    ['{ id; }', /braces/],
    ['echo {a,b}', /braces/],
    ['ls *.txt', /glob/],
    ['ls a?', /glob/],
    ['ls [ab]', /glob/],
    ['[ -f x ]', /glob or test/],
    ['echo ~', /~ is not expanded/],
    ['echo ~root/x', /~ is not expanded/],
    ['echo # hi', /comments/],
    ['cat <<EOF', /here-documents/],
    ['cat <<< word', /here-strings/],
    ['cat <> f', /read-write/],
    ['echo >| f', />\|/],
    ['ls |& cat', /\|&/],
    ['echo a ;; echo b', /syntax error/],
    ['if true; then id; fi', /keywords/],
    ['while true; do id; done', /keywords/],
    ['! id', /keywords/],
    ['time id', /keywords/],
    ['coproc id', /keywords/],
    ['PATH=/tmp ls', /assignments/],
    ['x=1', /assignments/],
    ['x+=1 ls', /assignments/],
    ['echo 12>f', /above 9/],
    ['echo >&f', /not supported/],
    ['echo &>', /needs a file/],
    ['; ls', /syntax error/],
    ['ls &&', /command is missing/],
    ['ls | | x', /syntax error/],
    ["echo 'open", /not closed/],
    ['echo "open', /not closed/],
    ['echo \\', /backslash/],
    ['echo a\nid', /single line/],
    ['echo a\rid', /single line/],
    ['echo a\u0000id', /single line/],
    ['', /empty/],
    ['x'.repeat(20_000), /longer than/],
  ];
  for (const [line, why] of refusals) {
    it(`EXEC: refuses ${JSON.stringify(line.slice(0, 40))}`, () => {
      expect(() => parseSubset(line)).toThrow(CommandRefusedError);
      expect(() => parseSubset(line)).toThrow(why);
    });
  }

  it('keeps keywords and assignments as plain words when quoted or not in command position', () => {
    expect(words("'if' x")).toEqual([['if', 'x']]);
    expect(words('echo if then x=1 a=b')).toEqual([['echo', 'if', 'then', 'x=1', 'a=b']]);
    expect(words('echo a#b a~b a!b a=b %x ^y')).toEqual([['echo', 'a#b', 'a~b', 'a!b', 'a=b', '%x', '^y']]);
    expect(words(`echo '$(id)' '\`id\`' '*' "a;b|c&d"`)).toEqual([['echo', '$(id)', '`id`', '*', 'a;b|c&d']]);
  });
});

describe('cross-check with mvdan/sh (sh-syntax)', () => {
  it('accepts lines both parsers read the same way', async () => {
    for (const line of ['ls', 'ls -la "a b"', 'a | b && c; d', 'a > f 2>&1', 'é ü; ls', 'echo "€" 𝄞 x', 'a 2>>e <i', 'a &', 'a &> f']) {
      await expect(parseChecked(line), line).resolves.toBeTruthy();
    }
  });

  it('refuses a line when the two parsers disagree', async () => {
    const twoStatements = parseSubset('a; b');
    twoStatements.statements.pop();
    await expect(crossCheck(twoStatements)).rejects.toThrow(/ambiguous/);
    const redirect = parseSubset('a > out');
    redirect.statements[0].pipelines[0].commands[0].redirects[0].target.value = 'other';
    await expect(crossCheck(redirect)).rejects.toThrow(/ambiguous/);
    const background = parseSubset('a &');
    background.statements[0].background = false;
    await expect(crossCheck(background)).rejects.toThrow(/ambiguous/);
  });

  it('reports mvdan/sh syntax errors as refusals', async () => {
    const line = parseSubset('a');
    await expect(crossCheck({ ...line, source: 'a; ;' })).rejects.toThrow(/syntax error/);
  });

  it('splits argv for the auth hook (one program, no shell syntax)', async () => {
    await expect(parseArgv(`/usr/bin/hook --name 'a b' c\\ d`)).resolves.toEqual(['/usr/bin/hook', '--name', 'a b', 'c d']);
    await expect(parseArgv('hook; id')).rejects.toThrow(/one program/);
    await expect(parseArgv('hook > f')).rejects.toThrow(/one program/);
    await expect(parseArgv('hook $USERNAME')).rejects.toThrow(/variables/);
  });
});

/** A small deterministic PRNG (mulberry32), so the fuzz cases are the same on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  'a',
  'b',
  'x',
  '1',
  '-',
  '.',
  '/',
  '=',
  ' ',
  ' ',
  ' ',
  '\t',
  "'",
  "'",
  '"',
  '"',
  '\\',
  '$',
  '`',
  ';',
  '&',
  '|',
  '<',
  '>',
  '(',
  ')',
  '{',
  '}',
  '*',
  '?',
  '[',
  ']',
  '~',
  '#',
  '!',
  '%',
  '^',
  ',',
  ':',
  'é',
  '\\"',
  "'a b'",
  '"c d"',
  '\\ ',
];

function randomLine(rand: () => number): string {
  const n = 1 + Math.floor(rand() * 14);
  let s = 'printf';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

describe('EXEC: metacharacter fuzz against real shells', () => {
  it('every accepted single-command line splits into exactly the words bash and dash see', async () => {
    const rand = prng(20260807);
    const accepted: Array<{ line: string; words: string[]; firstEnd: number }> = [];
    let refused = 0;
    for (let i = 0; i < 3000 && accepted.length < 100; i++) {
      const line = randomLine(rand);
      let parsed;
      try {
        parsed = await parseChecked(line);
      } catch (err) {
        expect(err).toBeInstanceOf(CommandRefusedError);
        refused++;
        continue;
      }
      const cmds = commandsOf(parsed);
      // Lines with operators are covered by the structural cross-check; here: plain commands.
      if (parsed.statements.length !== 1 || cmds.length !== 1 || cmds[0].redirects.length || parsed.statements[0].background) continue;
      accepted.push({ line, words: cmds[0].words.map((w) => w.value), firstEnd: cmds[0].words[0].end });
    }
    expect(refused).toBeGreaterThan(100);
    expect(accepted.length).toBeGreaterThan(50);
    // Each line becomes `printf '%s\0' WORDS...` for the shell: its first word ("printf" plus a
    // random suffix) is passed, quoted, as the first data argument, the rest as written. The
    // shells run in an empty folder, so a glob fm wrongly accepted would still show up.
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-fuzz-'));
    try {
      for (const shell of ['bash', 'dash']) {
        for (const { line, words, firstEnd } of accepted) {
          const script = `printf '%s\\0' ${quoteFirst(words[0])}${line.slice(firstEnd)}`;
          const r = spawnSync(shell, ['-c', script], { cwd, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
          expect(r.status, `${shell}: ${line}\n${r.stderr}`).toBe(0);
          expect(r.stdout.split('\0').slice(0, -1), `${shell}: ${line}`).toEqual(words);
        }
      }
      expect(fs.readdirSync(cwd)).toEqual([]);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Re-quotes the first word for the shell (its suffix may hold quotes that were part of it). */
function quoteFirst(w: string): string {
  return `'${w.replace(/'/g, `'\\''`)}'`;
}
