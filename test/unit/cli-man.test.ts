/**
 * The manual page documents the command tree exactly: every command has a section, and every
 * option of a command is described in its section (or in an options group the section names,
 * such as USER OPTIONS), and nothing else is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/index.ts';
import { PROJECT_ROOT } from '../helpers/server.ts';

interface Section {
  macro: 'SH' | 'SS';
  rawTitle: string;
  title: string;
  /** Option flags named in the section's .TP tags. */
  flags: Set<string>;
  /** The section's running text (without the tags). */
  body: string;
}

/** Roff to plain text: font escapes dropped, `\-` and `\(dq` decoded, quotes removed. */
function plain(roff: string): string {
  return roff
    .replace(/\\f[BIRP]/g, '')
    .replace(/\\-/g, '-')
    .replace(/\\\(dq/g, '"')
    .replace(/\\&/g, '')
    .replace(/^"|"$/g, '');
}

function flagsIn(text: string): string[] {
  const longs = text.match(/--[a-z0-9][a-z0-9-]*/g) ?? [];
  const shorts = [...text.matchAll(/(?:^|[\s,])(-[a-zA-Z])(?=[\s,]|$)/g)].map((m) => m[1]);
  return [...longs, ...shorts];
}

function parseMan(text: string): Section[] {
  const sections: Section[] = [];
  const lines = text.split('\n');
  let current: Section | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const heading = /^\.(SH|SS)\s+(.*)$/.exec(line);
    if (heading) {
      const rawTitle = heading[2].replace(/^"|"$/g, '');
      current = { macro: heading[1] as 'SH' | 'SS', rawTitle, title: plain(rawTitle).trim(), flags: new Set(), body: '' };
      sections.push(current);
      continue;
    }
    if (!current) continue;
    if (line.startsWith('.TP')) {
      const tag = lines[++i] ?? '';
      for (const f of flagsIn(plain(tag))) current.flags.add(f);
      continue;
    }
    if (!line.startsWith('.\\"')) current.body += `${plain(line.replace(/^\.(B|BR|I|IR|RB|BI)\s+/, ''))}\n`;
  }
  return sections;
}

function optionFlags(cmd: Command): Set<string> {
  const out = new Set<string>();
  for (const o of cmd.options) {
    if (o.long) out.add(o.long);
    if (o.short) out.add(o.short);
  }
  return out;
}

function leaves(cmd: Command, prefix: string[] = []): Array<{ path: string; cmd: Command }> {
  return cmd.commands.flatMap((c) => {
    const p = [...prefix, c.name()];
    return c.commands.length ? leaves(c, p) : [{ path: p.join(' '), cmd: c }];
  });
}

function diff(expected: Set<string>, actual: Set<string>) {
  return {
    missingFromManPage: [...expected].filter((f) => !actual.has(f)).sort(),
    notInCommandTree: [...actual].filter((f) => !expected.has(f)).sort(),
  };
}

const sections = parseMan(fs.readFileSync(path.join(PROJECT_ROOT, 'man/fm.1'), 'utf8'));
const groups = new Map(sections.filter((s) => s.macro === 'SH' && /OPTIONS$/.test(s.title) && s.title !== 'GLOBAL OPTIONS').map((s) => [s.title, s]));

/** The flags a section documents, with those of the groups it names (transitively). */
function documented(section: Section, seen = new Set<string>()): Set<string> {
  const out = new Set(section.flags);
  for (const [name, group] of groups) {
    if (group === section || seen.has(name) || !section.body.includes(name)) continue;
    seen.add(name);
    for (const f of documented(group, seen)) out.add(f);
  }
  return out;
}

/** Command sections: `.SS "fm users add \fIusername\fR ..."` → "users add". */
const commandSections = new Map(
  sections
    .filter((s) => s.macro === 'SS' && s.title.startsWith('fm '))
    .map((s) => [
      plain(s.rawTitle.split(/\\fI|\[/)[0])
        .trim()
        .replace(/^fm\s+/, ''),
      s,
    ]),
);

const program = await buildProgram();

describe('the manual page matches the command tree', () => {
  it('documents the global options', () => {
    const global = sections.find((s) => s.title === 'GLOBAL OPTIONS')!;
    expect(global).toBeDefined();
    const expected = optionFlags(program);
    const actual = new Set([...global.flags].filter((f) => f !== '--help' && f !== '-h'));
    expect(diff(expected, actual)).toEqual({ missingFromManPage: [], notInCommandTree: [] });
  });

  it('has a section for every command and no section for a command that does not exist', () => {
    const commands = leaves(program)
      .map((l) => l.path)
      .sort();
    expect([...commandSections.keys()].sort()).toEqual(commands);
  });

  it('groups of commands take no options of their own', () => {
    const groupsWithOptions = program.commands.filter((c) => c.commands.length > 0 && c.options.length > 0).map((c) => c.name());
    expect(groupsWithOptions).toEqual([]);
  });

  for (const leaf of leaves(program)) {
    it(`documents exactly the options of "fm ${leaf.path}"`, () => {
      const section = commandSections.get(leaf.path);
      expect(section, `no section for fm ${leaf.path}`).toBeDefined();
      expect(diff(optionFlags(leaf.cmd), documented(section!))).toEqual({ missingFromManPage: [], notInCommandTree: [] });
    });
  }

  it('notices an option that is missing from the page', () => {
    const section = commandSections.get('users add')!;
    const flags = documented(section);
    flags.delete('--password-stdin');
    const users = program.commands.find((c) => c.name() === 'users')!;
    const add = users.commands.find((c) => c.name() === 'add')!;
    expect(diff(optionFlags(add), flags).missingFromManPage).toEqual(['--password-stdin']);
  });
});
