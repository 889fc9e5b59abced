/** Runs the built `bin/fm.js` as a subprocess. */
import { spawn } from 'node:child_process';
import { FM_BIN } from './server.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runFm(args: string[], opts: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FM_BIN, ...args], {
      env: { ...process.env, ...opts.env },
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
