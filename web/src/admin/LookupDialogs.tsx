import { useEffect, useState, type DragEvent } from 'react';
import { get } from '../api/client';
import { Button } from '../ui/Button';
import { CopyButton } from '../ui/CopyButton';
import { count, shortTime } from '../ui/format';
import { Icon } from '../ui/icons';
import { FormDialog, Modal } from '../ui/Modal';
import { TextField } from '../ui/Field';
import { useAsyncAction } from '../ui/useAsyncAction';
import {
  exampleQuery,
  lookupPath,
  nameFromFile,
  sizeText,
  uploadLookup,
  type Lookup,
  type LookupPreview,
} from './lookups-api';
import { ErrorLine } from '../ui/ErrorLine';

const PREVIEW_ROWS = 100;

/** Upload a CSV as a new table, or as a new version of `replace`. */
export function UploadDialog({
  replace,
  onClose,
  onDone,
}: {
  replace?: Lookup;
  onClose: () => void;
  onDone: (l: Lookup, created: boolean) => void;
}) {
  const [name, setName] = useState(replace?.name ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [over, setOver] = useState(false);
  const action = useAsyncAction();
  const choose = (f: File | undefined) => {
    if (!f) return;
    setFile(f);
    action.setError(null);
    if (!replace && !name) setName(nameFromFile(f.name));
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    choose(e.dataTransfer.files[0]);
  };
  const submit = async () => {
    if (!file) return;
    const r = await uploadLookup(name.trim(), file);
    onDone(r.lookup, r.created);
  };
  return (
    <FormDialog
      id="lookup-form"
      title={replace ? `Replace ${replace.name}` : 'Upload lookup table'}
      onClose={onClose}
      onSubmit={submit}
      action={action}
      submitIcon="upload"
      submitLabel={action.busy ? 'Uploading…' : replace ? 'Replace table' : 'Upload'}
      canSubmit={!!file && !!name.trim()}
    >
      {!replace && (
        <TextField
          label="Table name (used in searches: | lookup name …)"
          value={name}
          onChange={setName}
          aria-label="Table name"
          placeholder="users"
          required
        />
      )}
      <label
        className={over ? 'lookup-drop over' : 'lookup-drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <input type="file" accept=".csv,text/csv" aria-label="CSV file" onChange={(e) => choose(e.target.files?.[0])} />
        <Icon name={file ? 'check' : 'upload'} size={22} />
        {file ? (
          <span>
            <strong>{file.name}</strong> <span className="muted">· {sizeText(file.size)}</span>
          </span>
        ) : (
          <span>
            <strong>Choose a CSV file</strong> <span className="muted">or drop it here</span>
          </span>
        )}
        <span className="muted small">
          The first row names the columns; every row has as many values. Empty cells count as no value.
        </span>
      </label>
      {replace && (
        <div className="alert alert-info">
          <Icon name="info" />
          <span>
            The new file replaces all {count(replace.rows)} rows. Searches already running finish with the old version.
          </span>
        </div>
      )}
    </FormDialog>
  );
}

/** The first rows of a table, and the query to use it with. */
export function PreviewDialog({ lookup, onClose }: { lookup: Lookup; onClose: () => void }) {
  const [data, setData] = useState<LookupPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<LookupPreview>(lookupPath(lookup.name), { preview: 1, rows: PREVIEW_ROWS }).then(setData, (e: Error) =>
      setError(e.message),
    );
  }, [lookup.name]);
  const query = exampleQuery(lookup);
  return (
    <Modal title={lookup.name} onClose={onClose} wide footer={<Button onClick={onClose}>Close</Button>}>
      <div className="lookup-preview-head">
        <span className="muted small">
          {count(lookup.rows)} rows · {lookup.columns.length} columns · {sizeText(lookup.bytes)} · updated{' '}
          {shortTime(lookup.updatedAt)} by {lookup.updatedBy}
        </span>
        <span className="spacer" />
        <a className="btn btn-secondary btn-sm" href={lookupPath(lookup.name)} download={`${lookup.name}.csv`}>
          <Icon name="download" size={14} /> Download CSV
        </a>
      </div>
      <div className="lookup-query">
        <code>{query}</code>
        <CopyButton text={query} label="Copy" />
      </div>
      <ErrorLine error={error} />
      <div className="lookup-preview-wrap">
        <table className="admin-table lookup-preview" data-testid="lookup-preview">
          <thead>
            <tr>
              <th className="num">#</th>
              {(data?.columns ?? lookup.columns).map((c) => (
                <th key={c}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(data?.rows ?? []).map((row, i) => (
              <tr key={i}>
                <td className="num muted">{i + 1}</td>
                {row.map((v, j) => (
                  <td key={j}>{v === null ? <span className="muted">—</span> : v}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data && lookup.rows > data.rows.length && (
        <p className="muted small">
          The first {data.rows.length} of {count(lookup.rows)} rows; download the CSV for all of them.
        </p>
      )}
    </Modal>
  );
}
