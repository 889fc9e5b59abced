/** Two-factor login of a user (POST/PUT/DELETE /api/users/{id}/totp). */
import type { TotpConfirmation, TotpEnrolment } from '../../src/api/totp.ts';
import { request, requestJSON } from './client.ts';

/** Starts an enrolment: a new secret and its otpauth:// URI. */
export function start(userID: number): Promise<TotpEnrolment> {
  return requestJSON<TotpEnrolment>(`/api/users/${userID}/totp`, { method: 'POST' });
}

/** Confirms the enrolment with a current code; answers the recovery codes, shown this once. */
export function confirm(userID: number, code: string): Promise<TotpConfirmation> {
  return requestJSON<TotpConfirmation>(`/api/users/${userID}/totp`, { method: 'PUT', json: { code } });
}

export async function turnOff(userID: number, currentPassword?: string): Promise<void> {
  await request(`/api/users/${userID}/totp`, { method: 'DELETE', json: { current_password: currentPassword } });
}
