import { memo } from 'react';
import { segments } from './highlight';

/**
 * A message with the search's terms and the page's find text marked. Log text is untrusted: it is
 * only ever rendered as React text nodes, never as HTML.
 */
export const Message = memo(function Message({
  text,
  terms,
  find,
}: {
  text: string;
  terms: RegExp | null;
  find: RegExp | null;
}) {
  return (
    <>
      {segments(text, terms).map((s, i) => {
        const inner = segments(s.text, find).map((f, j) =>
          f.hit ? (
            <mark key={j} className="find-hit">
              {f.text}
            </mark>
          ) : (
            f.text
          ),
        );
        return s.hit ? (
          <mark key={i} className="term-hit">
            {inner}
          </mark>
        ) : (
          <span key={i}>{inner}</span>
        );
      })}
    </>
  );
});
