import { useState } from 'react';
import { Button } from './Button';

/** Copies `text` to the clipboard and says so for a moment. */
export function CopyButton({
  text,
  label = 'Copy',
  size = 'sm',
  title,
}: {
  text: string;
  label?: string;
  size?: 'sm' | 'md';
  title?: string;
}) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // insecure contexts (plain http on another host) have no clipboard API: select-and-copy fallback
      const ta = document.createElement('textarea');
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return (
    <Button
      size={size}
      variant="ghost"
      icon={done ? 'check' : 'copy'}
      onClick={() => void copy()}
      title={title ?? label}
      aria-label={title ?? label}
    >
      {label ? (done ? 'Copied' : label) : undefined}
    </Button>
  );
}
