import { Icon } from './icons';

/** A form's or a page's error, in place; nothing when there is none. */
export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <div className="alert alert-error" role="alert">
      <Icon name="alert" />
      <span>{error}</span>
    </div>
  ) : null;
}
