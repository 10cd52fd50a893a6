import { useEffect, useState } from 'react';
import { isAbort } from '../api/client';
import { Icon } from '../ui/icons';
import { Popover } from '../ui/Popover';
import { errorMessage } from '../ui/useAsyncAction';
import { variableValues, type DashboardVariable, type RunBody } from './dashboard-api';

export type VarValues = Record<string, string | string[]>;

interface Props {
  dashId: string;
  variables: DashboardVariable[];
  values: VarValues;
  /** The load's range and values: a query variable's values are run as the viewer over it. */
  body: RunBody | null;
  onChange: (name: string, value: string[]) => void;
  /** A query variable's values as they come: the page picks the first for one with no value yet. */
  onOptions: (name: string, options: string[]) => void;
}

/** The dashboard's variables above its panels: a choice from a list or a query's values, or free text. */
export function VariableBar({ dashId, variables, values, body, onChange, onOptions }: Props) {
  if (variables.length === 0) return null;
  return (
    <div className="var-bar" role="group" aria-label="Variables" data-testid="var-bar">
      {variables.map((v) => (
        <VariableControl
          key={v.name}
          dashId={dashId}
          v={v}
          value={values[v.name]}
          body={body}
          onChange={(x) => onChange(v.name, x)}
          onOptions={(o) => onOptions(v.name, o)}
        />
      ))}
    </div>
  );
}

const asList = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function VariableControl({
  dashId,
  v,
  value,
  body,
  onChange,
  onOptions,
}: {
  dashId: string;
  v: DashboardVariable;
  value: string | string[] | undefined;
  body: RunBody | null;
  onChange: (value: string[]) => void;
  onOptions: (o: string[]) => void;
}) {
  const options = useOptions(dashId, v, body, onOptions);
  const label = v.label || v.name;
  const id = `var-${v.name}`;
  const chosen = asList(value);
  if (v.kind === 'text') return <TextVariable id={id} label={label} value={chosen[0] ?? ''} onChange={onChange} />;
  const list = options.error ? chosen : [...new Set([...chosen, ...options.values])];
  return (
    <div className="var-item">
      <label htmlFor={id} className="var-label">
        {label}
      </label>
      {v.multi ? (
        <MultiSelect id={id} label={label} options={list} chosen={chosen} onChange={onChange} />
      ) : (
        <select
          id={id}
          className="var-select"
          value={chosen[0] ?? ''}
          onChange={(e) => onChange([e.target.value])}
          data-testid={`var-${v.name}`}
        >
          {chosen.length === 0 && <option value="">{options.loading ? 'Loading…' : 'Choose…'}</option>}
          {list.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      )}
      {options.error && (
        <span className="var-error" title={options.error}>
          <Icon name="alert" size={14} />
        </span>
      )}
    </div>
  );
}

/** A list's values, or a query variable's, run again when the range or the other variables change. */
function useOptions(dashId: string, v: DashboardVariable, body: RunBody | null, onOptions: (o: string[]) => void) {
  const [state, setState] = useState<{ key: string; values: string[]; error: string | null }>({
    key: '',
    values: v.kind === 'list' ? (v.values ?? []) : [],
    error: null,
  });
  // its own value is not what its values depend on: leave it out so choosing one does not ask again
  const others = body && { ...body, vars: Object.fromEntries(Object.entries(body.vars).filter(([k]) => k !== v.name)) };
  const key = v.kind === 'query' ? JSON.stringify([dashId, v, others]) : '';
  useEffect(() => {
    if (!key || !others) return;
    const ac = new AbortController();
    variableValues(dashId, v.name, others, ac.signal).then(
      (r) => {
        setState({ key, values: r.values, error: null });
        onOptions(r.values);
      },
      (e: unknown) => !isAbort(e) && setState({ key, values: [], error: errorMessage(e) }),
    );
    return () => ac.abort();
    // key holds what the values depend on
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return { ...state, loading: key !== '' && state.key !== key };
}

function TextVariable({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string[]) => void;
}) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  if (value !== seen) {
    setSeen(value);
    setText(value);
  }
  const apply = () => text !== value && onChange([text]);
  return (
    <div className="var-item">
      <label htmlFor={id} className="var-label">
        {label}
      </label>
      <input
        id={id}
        className="var-text"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => e.key === 'Enter' && apply()}
      />
    </div>
  );
}

/** Several values: a button naming the choice, opening a list of checkboxes. */
function MultiSelect({
  id,
  label,
  options,
  chosen,
  onChange,
}: {
  id: string;
  label: string;
  options: string[];
  chosen: string[];
  onChange: (v: string[]) => void;
}) {
  const text =
    chosen.length === 0 ? 'None' : chosen.length <= 2 ? chosen.join(', ') : `${chosen[0]} +${chosen.length - 1}`;
  return (
    <Popover
      trigger={(toggle, open) => (
        <button id={id} className="var-select var-multi" onClick={toggle} aria-expanded={open} aria-haspopup="dialog">
          <span>{text}</span>
          <Icon name="chevronDown" size={14} />
        </button>
      )}
    >
      {() => (
        <div role="dialog" aria-label={`${label} values`} className="var-options">
          {options.map((o) => (
            <label key={o} className="var-option">
              <input
                type="checkbox"
                checked={chosen.includes(o)}
                onChange={(e) =>
                  // at least one value stays chosen: the server refuses an empty multi value
                  onChange(
                    e.target.checked ? [...chosen, o] : chosen.length > 1 ? chosen.filter((x) => x !== o) : chosen,
                  )
                }
              />
              <span>{o}</span>
            </label>
          ))}
          {options.length === 0 && <p className="muted small">No values</p>}
        </div>
      )}
    </Popover>
  );
}
