/**
 * The shell panel (spec §2 "Shell panel", §9): a resizable bottom panel; each command runs over
 * a WebSocket in the current folder and streams its output line by line; `clear` and `exit` are
 * handled here; input is disabled while a command runs; history with up and down.
 */
import { useSetAtom } from 'jotai';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useFileOps } from '../../actions/files.ts';
import { withBase } from '../../config.ts';
import { stripAnsi } from '../../lib/ansi.ts';
import { encodePath, trimSlash } from '../../lib/paths.ts';
import { ShellHistory, ShellStream, type ShellStatus } from '../../lib/shellProtocol.ts';
import { showShellAtom } from '../../state/shell.ts';
import { IconButton } from '../ui/Button.tsx';
import { useShellHeight } from './useShellHeight.ts';

interface Entry {
  id: number;
  dir: string;
  command: string;
  lines: string[];
  status?: ShellStatus;
  /** The socket closed without a status frame. */
  lost?: boolean;
}

/** The scrollback keeps at most this many output lines per command. */
const MAX_LINES = 5000;

function commandUrl(dir: string): string {
  const t = trimSlash(dir);
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${window.location.host}${withBase(`/api/command${t === '/' ? '/' : encodePath(t)}`)}`;
}

export default function Shell() {
  const { currentDir, reload } = useFileOps();
  const { t } = useTranslation();
  const { height, divider } = useShellHeight();
  const setShow = useSetAtom(showShellAtom);
  const [entries, setEntries] = useState<Entry[]>([]);
  const [input, setInput] = useState('');
  const [running, setRunning] = useState(false);
  const history = useRef(new ShellHistory());
  const inputRef = useRef<HTMLInputElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const socket = useRef<WebSocket | null>(null);
  const nextId = useRef(1);

  useEffect(() => {
    inputRef.current?.focus();
    return () => socket.current?.close();
  }, []);
  useEffect(() => {
    if (!running) inputRef.current?.focus();
  }, [running]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new entry or line scrolls to the end
  useEffect(() => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [entries]);

  const update = (id: number, fn: (e: Entry) => Entry) => setEntries((list) => list.map((e) => (e.id === id ? fn(e) : e)));

  const run = (command: string) => {
    const dir = currentDir();
    const id = nextId.current++;
    setEntries((list) => [...list, { id, dir, command, lines: [] }]);
    setRunning(true);
    const stream = new ShellStream();
    const ws = new WebSocket(commandUrl(dir));
    socket.current = ws;
    const add = (lines: string[]) => {
      if (lines.length) update(id, (e) => ({ ...e, lines: [...e.lines, ...lines.map(stripAnsi)].slice(-MAX_LINES) }));
    };
    ws.onopen = () => ws.send(command);
    ws.onmessage = (ev) => add(stream.message(typeof ev.data === 'string' ? ev.data : ''));
    ws.onerror = () => undefined;
    ws.onclose = () => {
      const end = stream.close();
      add(end.lines);
      update(id, (e) => ({ ...e, status: end.status, lost: !end.status }));
      socket.current = null;
      setRunning(false);
      // The command may have changed the folder.
      reload();
    };
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      const command = input.trim();
      setInput('');
      if (!command) return;
      history.current.add(command);
      if (command === 'clear') setEntries([]);
      else if (command === 'exit') setShow(false);
      else run(command);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      const prev = history.current.up();
      if (prev !== undefined) setInput(prev);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      setInput(history.current.down());
    }
  };

  const statusText = (entry: Entry): string | undefined => {
    const s = entry.status;
    if (entry.lost) return t('shell.connectionClosed');
    if (!s) return undefined;
    if (s.type === 'exit') return t('shell.exitCode', { code: s.code });
    if (s.type === 'error') return t('shell.internalError');
    return undefined;
  };

  return (
    <section className="shell" style={{ blockSize: height }} aria-label={t('shell.title')}>
      {/* A focusable separator is a splitter: its value is the panel's share of the window's height. */}
      {/* biome-ignore lint/a11y/useSemanticElements: <hr> is a static rule; this separator is a widget (focus, arrow keys, a value) */}
      <div
        className="shell-divider"
        role="separator"
        aria-orientation="horizontal"
        aria-label={t('shell.resize')}
        aria-valuenow={Math.round((height / window.innerHeight) * 100)}
        aria-valuemin={0}
        aria-valuemax={100}
        tabIndex={0}
        {...divider}
      />
      <div className="shell-bar">
        <span className="shell-title">{t('shell.title')}</span>
        <IconButton icon="close" label={t('buttons.close')} onClick={() => setShow(false)} />
      </div>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a click in the output returns to the command line; keyboard users are on it already */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the same: no control of its own */}
      <div className="shell-content" ref={scroller} onClick={() => !window.getSelection()?.toString() && inputRef.current?.focus()}>
        {entries.map((entry) => {
          const status = statusText(entry);
          const bad = entry.lost || (entry.status && (entry.status.type !== 'exit' || entry.status.code !== 0));
          return (
            <div key={entry.id} className="shell-entry" data-status={entry.status?.type === 'exit' ? entry.status.code : entry.status?.type}>
              <div className="shell-command">
                <span className="shell-prompt">{entry.dir} $</span> {entry.command}
              </div>
              {entry.lines.length > 0 && (
                <pre className={`shell-output${entry.status?.type === 'refused' ? ' shell-output-refused' : ''}`}>{entry.lines.join('\n')}</pre>
              )}
              {status && <div className={`shell-status${bad ? ' shell-status-bad' : ''}`}>{status}</div>}
            </div>
          );
        })}
        <div className="shell-line">
          <label className="shell-prompt" htmlFor="shell-input">
            {currentDir()} $
          </label>
          <input
            id="shell-input"
            ref={inputRef}
            className="shell-input"
            aria-label={t('shell.command')}
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            disabled={running}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={onKeyDown}
          />
        </div>
      </div>
    </section>
  );
}
