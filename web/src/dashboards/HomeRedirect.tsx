import { useEffect, useState } from 'react';
import { Redirect } from 'wouter';
import { dashboardHref, homeDashboard } from './dashboards-list-api';

/**
 * `/ui/`: the home dashboard of Admin → General when one is set and the caller may open it, else the
 * search page, as before there was the setting. An error asking is the search page too: the start
 * page must never be a dead end.
 */
export function HomeRedirect() {
  const [to, setTo] = useState<string | null>(null);
  useEffect(() => {
    homeDashboard().then(
      (h) => setTo(h.id ? dashboardHref(h.id) : '/search'),
      () => setTo('/search'),
    );
  }, []);
  if (to === null)
    return (
      <div className="page-center">
        <span className="spinner" aria-label="Loading" />
      </div>
    );
  return <Redirect to={to} replace />;
}
