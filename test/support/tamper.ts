/**
 * A sealed `a.b.c.d.e` value with one segment changed for certain. The change is made to the segment's first
 * character: base64url's last character may carry padding bits that decode to the same bytes when swapped,
 * so a test that rewrote the tail was, once in a few hundred runs, not tampering at all.
 */
export function withSegmentChanged(sealed: string, segment: number): string {
  const parts = sealed.split('.');
  const text = parts[segment];
  if (!text) throw new Error(`the sealed value has no segment ${segment}`);
  parts[segment] = `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
  return parts.join('.');
}
