import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { useSession } from '../app/session';
import { Icon, type IconName } from '../ui/icons';
import { ApiKeysPage } from './ApiKeysPage';
import { EnvsPage } from './EnvsPage';
import { GeneralPage } from './GeneralPage';
import { IngestTokensPage } from './IngestTokensPage';
import { LookupsPage } from './LookupsPage';
import { UsersPage } from './UsersPage';

const PAGES: { path: string; label: string; icon: IconName }[] = [
  { path: '/api-keys', label: 'API keys', icon: 'key' },
  { path: '/ingest-tokens', label: 'Ingest tokens', icon: 'token' },
  { path: '/envs', label: 'Environments', icon: 'layers' },
  { path: '/users', label: 'Users', icon: 'users' },
  { path: '/lookups', label: 'Lookups', icon: 'table' },
  { path: '/general', label: 'General', icon: 'settings' },
];

/** Admin → API keys, Ingest tokens, Environments, Users, Lookups, General. The server refuses others anyway. */
export default function AdminPages() {
  const { isAdmin } = useSession();
  const [location] = useLocation();
  if (!isAdmin) {
    return (
      <div className="page-center">
        <Icon name="lock" size={28} />
        <p>These pages are for administrators.</p>
        <a href="/ui/search">Back to search</a>
      </div>
    );
  }
  return (
    <div className="admin">
      <nav className="admin-nav" aria-label="Admin">
        <div className="menu-label">Admin</div>
        {PAGES.map((p) => (
          <Link key={p.path} href={p.path} className={location.startsWith(p.path) ? 'admin-link active' : 'admin-link'}>
            <Icon name={p.icon} /> {p.label}
          </Link>
        ))}
      </nav>
      <div className="admin-main">
        <Switch>
          <Route path="/api-keys" component={ApiKeysPage} />
          <Route path="/ingest-tokens" component={IngestTokensPage} />
          <Route path="/envs" component={EnvsPage} />
          <Route path="/users" component={UsersPage} />
          <Route path="/lookups" component={LookupsPage} />
          <Route path="/general" component={GeneralPage} />
          <Route>
            <Redirect to="/api-keys" replace />
          </Route>
        </Switch>
      </div>
    </div>
  );
}
