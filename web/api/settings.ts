/** GET/PUT /api/settings (admins only). */
import type { OidcConfig, Settings } from '../../src/api/settings.ts';
import { request, requestJSON } from './client.ts';

/** The settings as the API shows them: the auth options without secrets. */
export type SettingsDto = Omit<Settings, 'auth'> & {
  auth: {
    header: string;
    command: string;
    recaptcha: { host: string; key: string } | null;
    oidc: (Omit<OidcConfig, 'clientSecret'> & { hasClientSecret: boolean }) | null;
  };
};

export function get(): Promise<SettingsDto> {
  return requestJSON<SettingsDto>('/api/settings');
}

/** Saves the given top-level keys; the server keeps the others (a nested object sent is replaced whole). */
export async function update(changes: Partial<SettingsDto>): Promise<void> {
  await request('/api/settings', { method: 'PUT', json: changes });
}

/** Sets single sign-on (null turns it off); an empty client secret keeps the stored one for the same provider. */
export async function updateSingleSignOn(oidc: OidcConfig | null, currentPassword: string): Promise<void> {
  await request('/api/settings', { method: 'PUT', json: { auth: { oidc }, current_password: currentPassword } });
}
