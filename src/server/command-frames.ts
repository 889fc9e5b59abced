/** The command runner's frames and refusals on the wire (protocol: docs/exec.md). */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { ProcessResult } from '../services/exec/index.ts';
import { errorBody } from './middleware/errors.ts';

export function exitFrame(r: ProcessResult): Record<string, unknown> {
  const frame: Record<string, unknown> = { type: 'exit', code: r.code };
  if (r.signal) frame.signal = r.signal;
  if (r.reason) frame.reason = r.reason;
  if (r.error) frame.error = r.error;
  return frame;
}

/** A refusal: the message as a plain line (for clients that only print), the status frame, 1008. */
export function refuse(ws: WebSocket, message: string): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(`Command not allowed: ${message}`);
  sendFinal(ws, { type: 'refused', message }, 1008, message);
}

export function sendFinal(ws: WebSocket, frame: Record<string, unknown>, code: number, reason: string): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(JSON.stringify(frame));
  ws.close(code, truncateReason(reason));
}

/** Close reasons are limited to 123 bytes. */
function truncateReason(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}

export function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** Answers an upgrade request with a plain HTTP error and closes the connection. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  if (socket.destroyed) return;
  const body = errorBody(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
