import { useState } from 'react';
import { del, get } from '../api/client';
import { Button, DeleteButton } from '../ui/Button';
import { count, relativeTime, shortTime } from '../ui/format';
import { Icon } from '../ui/icons';
import { ConfirmDelete } from '../ui/Modal';
import { useNotifyAction, useToast } from '../ui/toast';
import { PreviewDialog, UploadDialog } from './LookupDialogs';
import { exampleQuery, lookupPath, sizeText, type Lookup } from './lookups-api';
import { AdminTable, PageHeader } from './parts';
import { ErrorLine } from '../ui/ErrorLine';
import { useLoad } from './useLoad';
import '../styles/lookups.css';

/** Column names shown in the list before "+N more". */
const SHOWN_COLUMNS = 5;

export function LookupsPage() {
  const list = useLoad(() => get<{ lookups: Lookup[] }>('/api/admin/lookups'));
  const [uploading, setUploading] = useState<{ replace?: Lookup } | null>(null);
  const [previewing, setPreviewing] = useState<Lookup | null>(null);
  const [deleting, setDeleting] = useState<Lookup | null>(null);
  const toast = useToast();
  const notify = useNotifyAction(list.reload);
  const lookups = list.data?.lookups ?? [];
  return (
    <div className="admin-page">
      <PageHeader
        title="Lookups"
        description={
          <>
            CSV tables that searches join with <code>| lookup</code>: each event gets the columns of the row whose key
            matches one of its fields. An upload replaces the table whole, on every node.
          </>
        }
        action={
          <Button variant="primary" icon="upload" onClick={() => setUploading({})}>
            Upload CSV
          </Button>
        }
      />
      <ErrorLine error={list.error} />
      <AdminTable
        testId="lookups"
        className="lookups-table"
        columns={[
          'Table',
          'Columns',
          { label: 'Rows', className: 'num' },
          { label: 'Size', className: 'num' },
          'Updated',
        ]}
        empty={
          list.data &&
          lookups.length === 0 && (
            <div className="lookup-empty">
              <Icon name="table" size={28} />
              <strong>No lookup tables yet</strong>
              <span>Upload a CSV whose first row names its columns, then enrich events in any search:</span>
              <code>* | lookup users uid as user_id output name, team</code>
            </div>
          )
        }
      >
        {lookups.map((l) => (
          <tr key={l.name} data-lookup={l.name}>
            <td className="name-cell">
              <button type="button" className="lookup-name" onClick={() => setPreviewing(l)}>
                <Icon name="table" /> {l.name}
              </button>
              <div className="mono small muted lookup-usage" title={exampleQuery(l)}>
                {exampleQuery(l)}
              </div>
            </td>
            <td className="lookup-columns">
              {l.columns.slice(0, SHOWN_COLUMNS).map((c) => (
                <span key={c} className="badge lookup-column">
                  {c}
                </span>
              ))}
              {l.columns.length > SHOWN_COLUMNS && (
                <span className="muted small">+{l.columns.length - SHOWN_COLUMNS} more</span>
              )}
            </td>
            <td className="num">{count(l.rows)}</td>
            <td className="num">{sizeText(l.bytes)}</td>
            <td title={l.updatedAt}>
              <div>{shortTime(l.updatedAt)}</div>
              <div className="muted small">
                {relativeTime(l.updatedAt)} by {l.updatedBy}
              </div>
            </td>
            <td className="actions-col">
              <Button size="sm" onClick={() => setPreviewing(l)}>
                Preview
              </Button>
              <Button
                size="sm"
                variant="ghost"
                icon="upload"
                aria-label={`Replace ${l.name}`}
                title="Replace with a new file"
                onClick={() => setUploading({ replace: l })}
              />
              <a
                className="btn btn-ghost btn-sm btn-icon"
                href={lookupPath(l.name)}
                download={`${l.name}.csv`}
                title="Download CSV"
                aria-label={`Download ${l.name}`}
              >
                <Icon name="download" size={14} />
              </a>
              <DeleteButton name={l.name} onClick={() => setDeleting(l)} />
            </td>
          </tr>
        ))}
      </AdminTable>
      <div className="lookup-notes muted small">
        <Icon name="info" />
        <span>
          Values match as text and case-sensitively; when several rows share a key, the first one wins. An event without
          a matching row gets no value for the table's columns (with <code>outputnew</code>, it keeps its own).
        </span>
      </div>
      {uploading && (
        <UploadDialog
          replace={uploading.replace}
          onClose={() => setUploading(null)}
          onDone={(l, created) => {
            setUploading(null);
            list.reload();
            toast(
              'ok',
              `${created ? 'Created' : 'Replaced'} ${l.name}: ${count(l.rows)} rows, ${l.columns.length} columns`,
            );
          }}
        />
      )}
      {previewing && <PreviewDialog lookup={previewing} onClose={() => setPreviewing(null)} />}
      {deleting && (
        <ConfirmDelete
          what="lookup table"
          name={deleting.name}
          confirmLabel="Delete table"
          consequence="Searches that use it fail with “unknown lookup table” from then on, on every node."
          onConfirm={() => notify(() => del(lookupPath(deleting.name)))}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}
