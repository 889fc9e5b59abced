/**
 * The public share behind /share/{hash}/{subpath} through the query cache: loading, the password
 * gate on 401 (a stale token is forgotten first), errors, and unlocking with a password (the
 * share's token is kept for the session so follow-up downloads need no password).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { statusOf } from '../../api/client.ts';
import { getPublic, type PublicAnswer } from '../../api/shares.ts';

export type ShareState =
  | { kind: 'loading' }
  /** `wrong`: translation key of why the last password failed ('' before any attempt). */
  | { kind: 'password'; wrong: string }
  | { kind: 'error'; code: number }
  | { kind: 'ok'; res: PublicAnswer };

const tokenKey = (hash: string) => `fm-share-token:${hash}`;
const shareKey = (hash: string, subpath: string, token: string) => ['public-share', hash, subpath, token] as const;

export function usePublicShare(hash: string, subpath: string): { state: ShareState; token: string; unlock(password: string): Promise<void> } {
  const queryClient = useQueryClient();
  const [token, setToken] = useState(() => sessionStorage.getItem(tokenKey(hash)) ?? '');
  // A failed unlock, for the location it was tried at.
  const [failure, setFailure] = useState<{ at: string; state: ShareState } | null>(null);
  const at = `${hash}${subpath}`;
  const failed = failure?.at === at ? failure.state : null;
  const setFailed = (state: ShareState | null) => setFailure(state && { at, state });
  const query = useQuery({
    queryKey: shareKey(hash, subpath, token),
    queryFn: ({ signal }) => getPublic(hash, subpath, { token: token || undefined }, signal),
    enabled: hash !== '',
  });

  const unlock = async (password: string) => {
    try {
      const r = await getPublic(hash, subpath, { password });
      queryClient.setQueryData(shareKey(hash, subpath, r.token ?? token), r);
      if (r.token) {
        sessionStorage.setItem(tokenKey(hash), r.token);
        setToken(r.token);
      }
      setFailed(null);
    } catch (err) {
      const code = statusOf(err);
      if (code === 401) setFailed({ kind: 'password', wrong: 'login.wrongCredentials' });
      else if (code === 429) setFailed({ kind: 'password', wrong: 'login.tooManyAttempts' });
      else setFailed({ kind: 'error', code });
    }
  };

  // A stale token: forget it and ask again without it (the password gate follows).
  const staleToken = token !== '' && query.error !== null && statusOf(query.error) === 401;
  useEffect(() => {
    if (!staleToken) return;
    sessionStorage.removeItem(tokenKey(hash));
    setToken('');
  }, [staleToken, hash]);

  let state: ShareState;
  if (!hash) state = { kind: 'error', code: 404 };
  else if (failed) state = failed;
  else if (query.data) state = { kind: 'ok', res: query.data };
  else if (query.error) {
    const code = statusOf(query.error);
    state = code === 401 ? { kind: 'password', wrong: '' } : { kind: 'error', code };
  } else state = { kind: 'loading' };
  return { state, token, unlock };
}
