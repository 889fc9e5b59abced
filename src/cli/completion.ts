/**
 * Shell completion scripts generated from the command tree, so they never fall behind it.
 * bash is the reference; zsh loads the bash function through bashcompinit; fish gets native
 * `complete` lines.
 */
import type { Command, Option } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** Command names from the root, e.g. ["users", "add"]; [] for fm itself. */
  path: string[];
  cmd: Command;
}

function nodes(root: Command): Node[] {
  const out: Node[] = [];
  const walk = (cmd: Command, path: string[]) => {
    out.push({ path, cmd });
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(root, []);
  return out;
}

function visibleOptions(cmd: Command): Option[] {
  return cmd.options.filter((o) => !o.hidden);
}

function flags(o: Option): string[] {
  return [o.short, o.long].filter((f): f is string => Boolean(f));
}

function takesValue(o: Option): boolean {
  return o.required || o.optional;
}

function subcommandNames(cmd: Command): string[] {
  return cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]);
}

function argumentChoices(cmd: Command): string[] {
  return cmd.registeredArguments.flatMap((a) => a.argChoices ?? []).filter((c) => !/\s/.test(c));
}

/** The completion script for one shell. */
export function completionScript(root: Command, shell: Shell): string {
  return shell === 'fish' ? fishScript(root) : shell === 'zsh' ? zshScript(root) : bashScript(root);
}

function bashScript(root: Command): string {
  const name = root.name();
  const globals = visibleOptions(root);
  const all = nodes(root);
  const q = (words: string[]) => `"${words.join(' ')}"`;
  const caseLines = (fn: (n: Node) => string[]) => all.map((n) => `    ${JSON.stringify(n.path.join(' '))}) echo ${q(fn(n))} ;;`).join('\n');
  const words = (n: Node) => {
    const opts = n.path.length === 0 ? visibleOptions(n.cmd) : [...visibleOptions(n.cmd), ...globals];
    return [...subcommandNames(n.cmd), ...argumentChoices(n.cmd), ...opts.flatMap(flags)];
  };
  const values = (n: Node) => {
    const opts = n.path.length === 0 ? visibleOptions(n.cmd) : [...visibleOptions(n.cmd), ...globals];
    return opts.filter(takesValue).flatMap(flags);
  };
  const choices = new Map<string, string[]>();
  for (const n of all)
    for (const o of visibleOptions(n.cmd))
      if (o.argChoices && o.long)
        choices.set(
          o.long,
          o.argChoices.filter((c) => !/\s/.test(c)),
        );
  const choiceLines = [...choices].map(([flag, list]) => `    ${flag}) echo ${q(list)} ;;`).join('\n');
  const fn = `_${name.replace(/\W/g, '_')}`;
  return `# bash completion for ${name}. Load it with:  source <(${name} completion bash)
${fn}_words() {
  case "$1" in
${caseLines(words)}
  esac
}
${fn}_values() {
  case "$1" in
${caseLines(values)}
  esac
}
${fn}_subcommands() {
  case "$1" in
${caseLines((n) => subcommandNames(n.cmd))}
  esac
}
${fn}_choices() {
  case "$1" in
${choiceLines}
  esac
}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ " $(${fn}_values "$path") " == *" $w "* ]]; then skip=1; continue; fi
    [[ "$w" == -* ]] && continue
    if [[ " $(${fn}_subcommands "$path") " == *" $w "* ]]; then path="\${path:+$path }$w"; fi
  done
  ((COMP_CWORD > 1)) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ -n "$prev" && " $(${fn}_values "$path") " == *" $prev "* ]]; then
    local list
    list="$(${fn}_choices "$prev")"
    if [[ -n "$list" ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$list" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
  fi
  mapfile -t COMPREPLY < <(compgen -W "$(${fn}_words "$path")" -- "$cur")
  if [[ \${#COMPREPLY[@]} -eq 0 && "$cur" != -* ]]; then
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -F ${fn} ${name}
`;
}

function zshScript(root: Command): string {
  const name = root.name();
  return `#compdef ${name}
# zsh completion for ${name}. Load it with:  source <(${name} completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(root).split('\n').slice(1).join('\n')}`;
}

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fishScript(root: Command): string {
  const name = root.name();
  const all = nodes(root);
  const paths = all
    .filter((n) => n.path.length > 0)
    .flatMap((n) => {
      const parent = n.path.slice(0, -1).join('/');
      return [n.cmd.name(), ...n.cmd.aliases()].map((w) => (parent ? `${parent}/${w}` : w));
    });
  const lines: string[] = [
    `# fish completion for ${name}. Load it with:  ${name} completion fish | source`,
    `set -g __${name}_paths ${paths.map(fishQuote).join(' ')}`,
    `function __${name}_path`,
    `    set -l path ''`,
    `    for w in (commandline -opc)[2..-1]`,
    `        string match -q -- '-*' $w; and continue`,
    `        set -l next $w`,
    `        test -n "$path"; and set next "$path/$w"`,
    `        contains -- $next $__${name}_paths; and set path $next`,
    `    end`,
    `    echo $path`,
    `end`,
    `function __${name}_at`,
    `    test (__${name}_path) = "$argv[1]"`,
    `end`,
    `complete -c ${name} -f`,
  ];
  const optionLine = (o: Option, cond: string) => {
    const parts = [`complete -c ${name}`];
    if (cond) parts.push(`-n ${fishQuote(cond)}`);
    if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
    if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
    if (takesValue(o)) parts.push(o.argChoices ? `-x -a ${fishQuote(o.argChoices.join(' '))}` : '-r -F');
    parts.push(`-d ${fishQuote(o.description)}`);
    return parts.join(' ');
  };
  for (const o of visibleOptions(root)) lines.push(optionLine(o, ''));
  for (const n of all) {
    const here = `__${name}_at ${fishQuote(n.path.join('/'))}`;
    for (const sub of n.cmd.commands) lines.push(`complete -c ${name} -n ${fishQuote(here)} -a ${fishQuote(sub.name())} -d ${fishQuote(sub.description())}`);
    const choices = argumentChoices(n.cmd);
    if (choices.length) lines.push(`complete -c ${name} -n ${fishQuote(here)} -a ${fishQuote(choices.join(' '))}`);
    if (n.path.length > 0) for (const o of visibleOptions(n.cmd)) lines.push(optionLine(o, here));
  }
  return `${lines.join('\n')}\n`;
}
