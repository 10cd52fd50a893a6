import { TextAreaField, TextField } from '../ui/Field';

interface Props {
  name: string;
  description: string;
  onName: (v: string) => void;
  onDescription: (v: string) => void;
}

/** A saved search's name and description, as the save and the rename dialogs ask for them (the server's limits). */
export function NameFields({ name, description, onName, onDescription }: Props) {
  return (
    <>
      <TextField label="Name" value={name} onChange={onName} maxLength={200} required autoFocus />
      <TextAreaField
        label="Description (optional)"
        value={description}
        onChange={onDescription}
        maxLength={2000}
        rows={2}
      />
    </>
  );
}
