import { forwardRef, type ReactNode } from 'react';
import type { CatalogEnv } from '../api/types';
import type { CompletionData } from '../lang/complete';
import { Button } from '../ui/Button';
import { count } from '../ui/format';
import { QueryEditor, type QueryEditorHandle, type QueryError } from './QueryEditor';
import { queryTimeModifiers, TimePicker } from './TimePicker';
import type { SearchParams } from './params';

interface Props {
  params: SearchParams;
  draft: string;
  onDraft: (q: string) => void;
  onRun: (q: string) => void;
  onChange: (patch: Partial<SearchParams>) => void;
  envs: CatalogEnv[];
  error: QueryError | null;
  completion: () => CompletionData;
  searching: boolean;
  onCancel: () => void;
  /** More actions after the Search button (Save). */
  actions?: ReactNode;
}

/** Where (env, index), what (the query) and when (the time range), and the run button. */
export const SearchBar = forwardRef<QueryEditorHandle, Props>(function SearchBar(p, editorRef) {
  const env = p.envs.find((e) => e.name === p.params.env);
  const envNames = p.envs.map((e) => e.name);
  if (!envNames.includes(p.params.env)) envNames.unshift(p.params.env);
  return (
    <div className="search-bar">
      <select
        className="picker"
        aria-label="Environment"
        value={p.params.env}
        onChange={(e) => p.onChange({ env: e.target.value, index: '' })}
      >
        {envNames.map((n) => {
          const info = p.envs.find((e) => e.name === n);
          return (
            <option key={n} value={n}>
              {n}
              {info ? ` (${count(info.events)})` : ''}
            </option>
          );
        })}
        <option value="*">All environments</option>
      </select>
      <select
        className="picker"
        aria-label="Index"
        value={p.params.index}
        onChange={(e) => p.onChange({ index: e.target.value })}
      >
        <option value="">All indexes</option>
        {(env?.indexes ?? []).map((i) => (
          <option key={i.name} value={i.name}>
            {i.name} ({count(i.events)})
          </option>
        ))}
        {p.params.index && !env?.indexes.some((i) => i.name === p.params.index) && (
          <option value={p.params.index}>{p.params.index}</option>
        )}
      </select>
      <QueryEditor
        ref={editorRef}
        value={p.draft}
        onChange={p.onDraft}
        onRun={p.onRun}
        error={p.error}
        completion={p.completion}
      />
      <TimePicker
        from={p.params.from}
        to={p.params.to}
        onChange={(from, to) => p.onChange({ from, to })}
        fromQuery={queryTimeModifiers(p.draft)}
      />
      {p.searching ? (
        <Button variant="danger" icon="stop" onClick={p.onCancel} data-testid="cancel">
          Cancel
        </Button>
      ) : (
        <Button variant="primary" icon="search" onClick={() => p.onRun(p.draft)} data-testid="run">
          Search
        </Button>
      )}
      {p.actions}
    </div>
  );
});
