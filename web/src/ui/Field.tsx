import type { InputHTMLAttributes, ReactNode, TextareaHTMLAttributes } from 'react';

/** A labelled form control: the label text above, the control (input, select, textarea) below. */
export function Field({ label, className, children }: { label: ReactNode; className?: string; children: ReactNode }) {
  return (
    <label className={className ? `field ${className}` : 'field'}>
      <span>{label}</span>
      {children}
    </label>
  );
}

type Text<E> = Omit<E, 'value' | 'onChange'> & {
  label: ReactNode;
  value: string;
  /** The new text (not the event): every caller only wants that. */
  onChange: (value: string) => void;
  fieldClassName?: string;
};

/** A labelled text input (any `type`); the rest of the props go to the <input>. */
export function TextField({
  label,
  value,
  onChange,
  fieldClassName,
  ...input
}: Text<InputHTMLAttributes<HTMLInputElement>>) {
  return (
    <Field label={label} className={fieldClassName}>
      <input value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </Field>
  );
}

/** A labelled textarea; the rest of the props go to the <textarea>. */
export function TextAreaField({
  label,
  value,
  onChange,
  fieldClassName,
  ...area
}: Text<TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  return (
    <Field label={label} className={fieldClassName}>
      <textarea value={value} onChange={(e) => onChange(e.target.value)} {...area} />
    </Field>
  );
}

/** The attributes of a control that a FormField's error describes. */
export function controlProps(id: string, error: string | undefined) {
  return {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : undefined,
  };
}

/**
 * A labelled control with room for its own error beneath it: forms whose server names the field at
 * fault show the message there, not at the top. The control takes `controlProps(id, error)`. The
 * error is outside the <label>, so it describes the control without becoming part of its name.
 */
export function FormField({
  label,
  id,
  error,
  className,
  children,
}: {
  label: ReactNode;
  id: string;
  error?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
