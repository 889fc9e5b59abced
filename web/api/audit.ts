/** The audit log (GET /api/audit): a page of entries with the total, exports, and the log's own state. */
import type { AuditAction, AuditEntry, AuditStatus } from '../../src/api/audit.ts';
import { request, requestJSON } from './client.ts';

export type { AuditAction, AuditEntry, AuditStatus };
export { AUDIT_ACTIONS, AUDIT_MAX_LIMIT } from '../../src/api/audit.ts';

/** What the Activity pages filter on; empty strings mean "any". */
export interface AuditFilter {
  user: string;
  action: AuditAction | '';
  path: string;
  /** ISO 8601 or '' */
  since: string;
  until: string;
}

export const NO_FILTER: AuditFilter = { user: '', action: '', path: '', since: '', until: '' };

function query(filter: AuditFilter, extra: Record<string, string>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filter, ...extra })) if (v !== '') q.set(k, v);
  return q.toString();
}

export interface AuditPage {
  entries: AuditEntry[];
  /** How many entries match in all. */
  total: number;
}

export async function list(filter: AuditFilter, limit: number, offset: number, signal?: AbortSignal): Promise<AuditPage> {
  const res = await request(`/api/audit?${query(filter, { limit: String(limit), offset: String(offset) })}`, { signal });
  const entries = (await res.json()) as AuditEntry[];
  return { entries, total: Number(res.headers.get('X-Total-Count') ?? entries.length) };
}

/** Every matching entry (up to the server's page limit) as a CSV or JSON file. */
export async function exportFile(filter: AuditFilter, format: 'csv' | 'json', limit: number): Promise<Blob> {
  const res = await request(`/api/audit?${query(filter, { limit: String(limit), format })}`);
  return res.blob();
}

export function status(): Promise<AuditStatus> {
  return requestJSON<AuditStatus>('/api/audit/status');
}
