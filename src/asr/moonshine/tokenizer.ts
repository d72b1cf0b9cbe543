/**
 * Moonshine's tokenizer file (tokenizer.bin): 32,000 byte pieces in id order, each written as its
 * length (one byte; or two when the first has bit 7 set: low 7 bits + second byte × 128) followed by
 * that many bytes. Ids 0–2 are <unk>, <s>, </s> (skipped when decoding); ids 3–258 are the raw bytes
 * 0x00–0xFF (byte fallback). "▁" (U+2581) stands for a space.
 * Decoding joins the pieces' bytes, decodes UTF-8 once (a character may span pieces) and maps ▁ to ' '.
 */
import { readFileSync } from 'node:fs';

const SPACE_MARK = /\u2581/g;
/** Token ids: 0 is <unk>; <s> (decoder start), </s> (end of sequence). */
export const BOS = 1;
export const EOS = 2;
const isSpecial = (id: number) => id <= EOS;

export interface Tokenizer {
  readonly size: number;
  /** The raw bytes of one piece (empty for special tokens). */
  piece(id: number): Uint8Array;
  /** Text of a token sequence, special tokens skipped, leading/trailing space trimmed. */
  decode(ids: readonly number[]): string;
}

export function parseTokenizer(bytes: Uint8Array): Tokenizer {
  const pieces: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    let len = bytes[i++]!;
    if (len & 0x80) {
      if (i >= bytes.length) throw new Error(`tokenizer: truncated length at byte ${i - 1}`);
      len = (len & 0x7f) + bytes[i++]! * 128;
    }
    if (i + len > bytes.length) throw new Error(`tokenizer: piece ${pieces.length} runs past the end of the file`);
    pieces.push(bytes.subarray(i, i + len));
    i += len;
  }
  const utf8 = new TextDecoder('utf-8');
  return {
    size: pieces.length,
    piece(id) {
      return pieces[id] ?? new Uint8Array(0);
    },
    decode(ids) {
      let n = 0;
      for (const id of ids) if (!isSpecial(id)) n += pieces[id]?.length ?? 0;
      const buf = new Uint8Array(n);
      let o = 0;
      for (const id of ids) {
        const p = isSpecial(id) ? undefined : pieces[id];
        if (p) {
          buf.set(p, o);
          o += p.length;
        }
      }
      return utf8.decode(buf).replace(SPACE_MARK, ' ').trim();
    },
  };
}

export function loadTokenizer(file: string): Tokenizer {
  return parseTokenizer(readFileSync(file));
}
