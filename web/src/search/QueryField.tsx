import { forwardRef } from 'react';
import type { CompletionData } from '../lang/complete';
import { FormField } from '../ui/Field';
import { QueryEditor, type QueryEditorHandle, type QueryError } from './QueryEditor';

interface Props {
  label: string;
  id: string;
  /** The server's error about the query: shown under it, its position underlined in it. */
  error: QueryError | null;
  placeholder: string;
  value: string;
  onChange: (text: string) => void;
  onRun: () => void;
  completion: () => CompletionData;
}

/** The query editor as a form's field (a monitor's search, a dashboard panel's query), with its error beneath. */
export const QueryField = forwardRef<QueryEditorHandle, Props>(function QueryField(p, ref) {
  return (
    <FormField label={p.label} id={p.id} error={p.error?.message}>
      <QueryEditor
        ref={ref}
        label={p.label}
        id={p.id}
        errorId={p.error ? `${p.id}-error` : undefined}
        placeholder={p.placeholder}
        value={p.value}
        onChange={p.onChange}
        onRun={p.onRun}
        error={p.error}
        completion={p.completion}
      />
    </FormField>
  );
});
