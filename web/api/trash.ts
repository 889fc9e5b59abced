/** The caller's trash (GET/POST/DELETE /api/trash; docs/trash.md). */
import type { TrashItem } from '../../src/api/trash.ts';
import { request, requestJSON } from './client.ts';

export type { TrashItem };

/** How a restore resolves a clash at the original path (none: the server answers 409). */
export type RestoreMode = 'rename' | 'override';

export function list(): Promise<TrashItem[]> {
  return requestJSON<TrashItem[]>('/api/trash');
}

/** Puts an item back; the answer names where it went. */
export function restore(id: string, mode?: RestoreMode): Promise<{ path: string }> {
  const extra = mode ? `&${mode}=true` : '';
  return requestJSON<{ path: string }>(`/api/trash/${encodeURIComponent(id)}?action=restore${extra}`, { method: 'POST' });
}

/** Deletes one item for good. */
export async function remove(id: string): Promise<void> {
  await request(`/api/trash/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** Deletes every item for good. */
export async function empty(): Promise<void> {
  await request('/api/trash', { method: 'DELETE' });
}
