import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { Icon, Logo } from '../ui/icons';
import { Popover } from '../ui/Popover';
import { useSession } from './session';
import { applyTheme, storedTheme, type ThemeChoice } from './theme';

/** The frame of every signed-in page: product name, navigation, who is signed in. */
export function Shell({ children }: { children: ReactNode }) {
  const { me, isAdmin, logout } = useSession();
  const [location] = useLocation();
  const [theme, setTheme] = useState<ThemeChoice>(storedTheme());
  const pick = (t: ThemeChoice) => {
    applyTheme(t);
    setTheme(t);
  };
  const tab = (href: string, label: ReactNode) => (
    <Link href={href} className={location.startsWith(href) ? 'nav-link active' : 'nav-link'}>
      {label}
    </Link>
  );
  return (
    <div className="shell">
      {/* the first Tab stop: past the navigation, to the page's results when it has them */}
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          (document.getElementById('results') ?? document.getElementById('main'))?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/search" className="brand" aria-label="svc home">
          <Logo />
          <span>svc</span>
        </Link>
        <nav className="nav" aria-label="Main">
          {tab('/search', 'Search')}
          {tab(
            '/saved',
            // one inline box: the link is a flex row, which would drop the space before " searches"
            <span>
              {/* "Saved" on a phone (styles/phone.css) */}
              Saved<span className="wide-only"> searches</span>
            </span>,
          )}
          {tab('/dashboards', 'Dashboards')}
          {tab('/monitors', 'Monitors')}
          {isAdmin && tab('/admin', 'Admin')}
        </nav>
        <div className="topbar-right">
          <Popover
            align="right"
            trigger={(toggle) => (
              // named by its visible text, the user's name (WCAG 2.5.3, label in name): a menu button
              <button className="user-button" onClick={toggle} aria-haspopup="menu" title="Account menu">
                <span className="avatar" aria-hidden="true">
                  {me.name.slice(0, 1).toUpperCase()}
                </span>
                <span>{me.name}</span>
                <Icon name="chevronDown" size={14} />
              </button>
            )}
          >
            {(close) => (
              <div className="menu">
                <div className="menu-note">
                  Signed in as <strong>{me.name}</strong>
                  <br />
                  <span className="muted">
                    {me.kind === 'user' ? (me.role === 'admin' ? 'Administrator' : 'User') : 'API key'}
                  </span>
                </div>
                <div className="menu-label">Theme</div>
                <div className="segmented" role="radiogroup" aria-label="Theme">
                  {(['system', 'light', 'dark'] as const).map((t) => (
                    <button
                      key={t}
                      role="radio"
                      aria-checked={theme === t}
                      className={theme === t ? 'on' : ''}
                      onClick={() => pick(t)}
                    >
                      <Icon name={t === 'system' ? 'monitor' : t === 'light' ? 'sun' : 'moon'} size={14} />{' '}
                      {t[0].toUpperCase() + t.slice(1)}
                    </button>
                  ))}
                </div>
                <button
                  className="menu-item"
                  onClick={() => {
                    close();
                    void logout();
                  }}
                >
                  <Icon name="logout" /> Sign out
                </button>
                {me.kind === 'user' && (
                  <button
                    className="menu-item"
                    title="End every session of yours, on every browser and device"
                    onClick={() => {
                      close();
                      void logout(true);
                    }}
                  >
                    <Icon name="logout" /> Sign out everywhere
                  </button>
                )}
              </div>
            )}
          </Popover>
        </div>
      </header>
      <main className="main" id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
