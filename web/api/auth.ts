/** Session calls: login, renew, logout, signup. */
import { request, requestText } from './client.ts';

/** Returns the JWT; `otp` is the two-factor or recovery code, once the server asked for one. */
export function login(username: string, password: string, recaptcha = '', otp?: string): Promise<string> {
  return requestText('/api/login', { method: 'POST', json: { username, password, recaptcha, otp }, keepSessionOn401: true });
}

/** Returns a fresh JWT for the current one. */
export function renew(): Promise<string> {
  return requestText('/api/renew', { method: 'POST', keepSessionOn401: true });
}

/** Takes the session a single sign-on callback left for this browser (once). */
export function takeOidcSession(): Promise<string> {
  return requestText('/api/auth/oidc/session', { method: 'POST', keepSessionOn401: true });
}

/** Revokes the current token on the server. */
export async function logout(): Promise<void> {
  await request('/api/logout', { method: 'POST', keepSessionOn401: true });
}

export async function signup(username: string, password: string): Promise<void> {
  await request('/api/signup', { method: 'POST', json: { username, password }, keepSessionOn401: true });
}
