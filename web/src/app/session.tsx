import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, post } from '../api/client';
import type { Me } from '../api/types';

interface Session {
  me: Me;
  isAdmin: boolean;
  /** `everywhere`: end every session of this user, on every browser and device. */
  logout: (everywhere?: boolean) => Promise<void>;
}

const Ctx = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(Ctx);
  if (!s) throw new Error('useSession outside <SessionGate>');
  return s;
}

/**
 * Renders its children once `/api/auth/me` says who is logged in. Without a session the API
 * client's 401 handler sends the browser to the login page (and back here afterwards).
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Me>('GET', '/api/auth/me').then(setMe, (e: Error) => setError(e.message));
  }, []);
  const logout = useCallback(async (everywhere = false) => {
    await post(everywhere ? '/api/auth/logout-everywhere' : '/api/auth/logout').catch(() => undefined);
    location.assign('/ui/login');
  }, []);
  if (error) return <div className="page-center muted">Cannot reach svc: {error}</div>;
  if (!me)
    return (
      <div className="page-center">
        <span className="spinner" aria-label="Loading" />
      </div>
    );
  const isAdmin = me.scopes.includes('admin');
  return <Ctx.Provider value={{ me, isAdmin, logout }}>{children}</Ctx.Provider>;
}
