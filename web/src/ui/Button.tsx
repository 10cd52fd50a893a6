import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Icon, type IconName } from './icons';

type Variant = 'primary' | 'secondary' | 'ghost' | 'danger';

interface Props extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  icon?: IconName;
  size?: 'sm' | 'md';
  children?: ReactNode;
}

export function Button({
  variant = 'secondary',
  icon,
  size = 'md',
  className,
  children,
  type = 'button',
  ...rest
}: Props) {
  const cls = ['btn', `btn-${variant}`, size === 'sm' ? 'btn-sm' : '', !children ? 'btn-icon' : '', className ?? '']
    .filter(Boolean)
    .join(' ');
  return (
    <button type={type} className={cls} {...rest}>
      {icon && <Icon name={icon} size={size === 'sm' ? 14 : 16} />}
      {children}
    </button>
  );
}

/** The trash icon of a row, labelled "Delete <name>" for screen readers and tests. */
export function DeleteButton({ name, onClick }: { name: string; onClick: () => void }) {
  return (
    <Button size="sm" variant="ghost" icon="trash" aria-label={`Delete ${name}`} title="Delete" onClick={onClick} />
  );
}
