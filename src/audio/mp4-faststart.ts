/**
 * MP4/M4A written with its index (`moov`) after the media data (`mdat`), as most recorders and
 * ffmpeg without `-movflags +faststart` write it. ffmpeg reads uploads from a pipe (never from a
 * plaintext file) and cannot seek back from the index to the data, so the top-level boxes are
 * reordered in memory — `moov` in front of the first `mdat` — and every chunk offset (`stco`, `co64`)
 * is shifted by the size of `moov`, as qt-faststart does. Malformed input is returned unchanged
 * (ffmpeg then reports it).
 */
import { voxdexError } from '../errors.js';

interface Box {
  type: string;
  start: number;
  size: number;
}

/** Boxes whose children hold the chunk offset tables. */
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** The boxes in b[from, to), or undefined when a size is impossible (truncated or not MP4). */
function boxes(b: Uint8Array, from: number, to: number): Box[] | undefined {
  const v = view(b);
  const out: Box[] = [];
  for (let pos = from; pos + 8 <= to; ) {
    let size = v.getUint32(pos);
    if (size === 1) {
      if (pos + 16 > to) return undefined;
      size = Number(v.getBigUint64(pos + 8));
    } else if (size === 0) size = to - pos;
    if (size < 8 || pos + size > to) return undefined;
    out.push({ type: String.fromCharCode(b[pos + 4]!, b[pos + 5]!, b[pos + 6]!, b[pos + 7]!), start: pos, size });
    pos += size;
  }
  return out;
}

/** Adds `shift` to every chunk offset under the box list (in place, in `b`). */
function shiftOffsets(b: Uint8Array, list: Box[], shift: number): void {
  const v = view(b);
  for (const box of list) {
    const header = v.getUint32(box.start) === 1 ? 16 : 8;
    const body = box.start + header;
    const end = box.start + box.size;
    if (CONTAINERS.has(box.type)) {
      const children = boxes(b, body, end);
      if (children) shiftOffsets(b, children, shift);
    } else if (box.type === 'stco' || box.type === 'co64') {
      const wide = box.type === 'co64';
      const count = body + 8 <= end ? v.getUint32(body + 4) : 0;
      const at = body + 8;
      if (at + count * (wide ? 8 : 4) > end) continue;
      for (let i = 0; i < count; i++) {
        if (wide) v.setBigUint64(at + i * 8, v.getBigUint64(at + i * 8) + BigInt(shift));
        else {
          const o = v.getUint32(at + i * 4) + shift;
          if (o > 0xffffffff) throw voxdexError('UNSUPPORTED_AUDIO', 'The MP4 file keeps its index after 4 GiB of media data; write it with the index first (ffmpeg -movflags +faststart).');
          v.setUint32(at + i * 4, o);
        }
      }
    }
  }
}

/** `bytes` with `moov` before the first `mdat` (a copy), or `bytes` itself when it already is, or is not a well-formed MP4. */
export function moovFirst(bytes: Uint8Array): Uint8Array {
  const top = boxes(bytes, 0, bytes.length);
  if (!top) return bytes;
  const moov = top.findIndex((x) => x.type === 'moov');
  const mdat = top.findIndex((x) => x.type === 'mdat');
  if (moov < 0 || mdat < 0 || moov < mdat) return bytes;
  const index = bytes.slice(top[moov]!.start, top[moov]!.start + top[moov]!.size);
  const inIndex = boxes(index, 0, index.length);
  if (!inIndex) return bytes;
  shiftOffsets(index, inIndex, index.length);
  const out = new Uint8Array(bytes.length);
  const first = top[mdat]!.start;
  out.set(bytes.subarray(0, first), 0);
  out.set(index, first);
  let at = first + index.length;
  for (const [i, box] of top.entries()) {
    if (i < mdat || i === moov) continue;
    out.set(bytes.subarray(box.start, box.start + box.size), at);
    at += box.size;
  }
  return out;
}
