import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { applyTheme, storedTheme } from './app/theme';
import './styles/base.css';
import './styles/shell.css';
import './styles/search.css';
import './styles/admin.css';
import './styles/monitors.css';
import './styles/phone.css';

applyTheme(storedTheme());
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
