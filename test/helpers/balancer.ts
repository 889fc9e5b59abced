/**
 * Debian's nginx in front of fm instances, configured from the shipped example
 * (config/nginx-fm.conf) with only its addresses changed: the upstreams given, a loopback port
 * without TLS, temporary files in a folder of its own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from './server.ts';
import { freePort } from './postgres.ts';

export const NGINX_BIN = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));

export interface Balancer {
  url: string;
  stop(): void;
}

export async function startBalancer(upstreams: string[]): Promise<Balancer> {
  if (!NGINX_BIN) throw new Error('nginx is not installed (Debian package nginx)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-nginx-'));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  let example = fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'nginx-fm.conf'), 'utf8');
  const servers = [...example.matchAll(/^\s*server 10\.0\.0\.\d+:8080 (.*);$/gm)];
  if (servers.length !== 3) throw new Error('config/nginx-fm.conf: expected three upstream servers');
  const options = servers[0][1];
  example = example.replace(/(\s*server 10\.0\.0\.\d+:8080 .*;\n)+/, `\n${upstreams.map((u) => `    server ${u} ${options};`).join('\n')}\n`);
  example = example.replace('listen 443 ssl;', `listen 127.0.0.1:${port};`).replace(/^\s*ssl_certificate.*$/gm, '');
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
daemon on;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${example}
}`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const r = spawnSync(NGINX_BIN, ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nginx failed: ${r.stderr}`);
  const pid = Number(fs.readFileSync(path.join(dir, 'nginx.pid'), 'utf8'));
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      try {
        process.kill(pid, 'SIGQUIT');
      } catch {
        // already gone
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
