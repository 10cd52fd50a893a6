import { lazy, Suspense } from 'react';
import { Route, Router, Switch } from 'wouter';
import { LoginPage } from '../login/LoginPage';
import { SsoFailedPage } from '../login/SsoFailedPage';
import { SearchPage } from '../search/SearchPage';
import { MonitorsPage } from '../monitors/MonitorsPage';
import { SavedSearchesPage } from '../saved/SavedSearchesPage';
import { DashboardsPage } from '../dashboards/DashboardsPage';
import { HomeRedirect } from '../dashboards/HomeRedirect';
import { ToastProvider } from '../ui/toast';
import { SessionGate } from './session';
import { Shell } from './Shell';

// admin pages and the dashboard (with its grid library) are separate chunks: many sessions never open them
const AdminPages = lazy(() => import('../admin/AdminPages'));
const DashboardPage = lazy(() => import('../dashboards/DashboardPage').then((m) => ({ default: m.DashboardPage })));

const loadingPage = (
  <div className="page-center">
    <span className="spinner" />
  </div>
);

export function App() {
  return (
    <ToastProvider>
      <Router base="/ui">
        <Switch>
          <Route path="/login" component={LoginPage} />
          <Route path="/sso-failed" component={SsoFailedPage} />
          <Route>
            <SessionGate>
              <Shell>
                <Switch>
                  <Route path="/search" component={SearchPage} />
                  <Route path="/saved" component={SavedSearchesPage} />
                  <Route path="/dashboards" component={DashboardsPage} />
                  <Route path="/monitors" component={MonitorsPage} />
                  <Route path="/dashboards/:id">
                    <Suspense fallback={loadingPage}>
                      <DashboardPage />
                    </Suspense>
                  </Route>
                  <Route path="/admin" nest>
                    <Suspense fallback={loadingPage}>
                      <AdminPages />
                    </Suspense>
                  </Route>
                  <Route path="/" component={HomeRedirect} />
                  <Route>
                    <div className="page-center muted">
                      There is no page here. <a href="/ui/search">Go to search</a>
                    </div>
                  </Route>
                </Switch>
              </Shell>
            </SessionGate>
          </Route>
        </Switch>
      </Router>
    </ToastProvider>
  );
}
