/**
 * Archive member names that are not UTF-8. A zip member without the UTF-8 flag has its name in the
 * legacy DOS code page (CP437, what zip tools without the flag write); 7z prints such a name as its
 * raw bytes and extracts it under them. voxdex reads each name as UTF-8 when its bytes are valid
 * UTF-8, else as CP437 (`caf\x82.wav` → `café.wav`), and names the member to the 7z CLI by a pattern (`caf*.wav`) that its raw bytes match.
 */

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

function isUtf8(bytes: Uint8Array): boolean {
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** One name (or path component): UTF-8 when its bytes are valid UTF-8, else CP437. */
function decodeName(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return UTF8.decode(bytes);
  return Array.from(bytes, (b) => (b < 128 ? String.fromCharCode(b) : CP437_HIGH[b - 128]!)).join('');
}

/** Splits a byte string on '/' (0x2f never occurs inside a UTF-8 or CP437 character). */
function components(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x2f) {
      out.push(bytes.subarray(from, i));
      from = i + 1;
    }
  }
  return out;
}

interface DecodedOutput {
  text: string;
  /** Decoded member name → the 7z wildcard pattern its raw bytes match, for names that were not UTF-8. */
  patterns: Map<string, string>;
}

/** 7z's output as text: `Path = …` lines whose bytes are not UTF-8 are decoded name by name (decodeName). */
export function decodeOutput(raw: Buffer): DecodedOutput {
  if (isUtf8(raw)) return { text: raw.toString('utf8'), patterns: new Map() };
  const patterns = new Map<string, string>();
  const PREFIX = Buffer.from('Path = ');
  const lines: string[] = [];
  let from = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i < raw.length && raw[i] !== 0x0a) continue;
    const line = raw.subarray(from, i);
    from = i + 1;
    if (isUtf8(line)) lines.push(line.toString('utf8'));
    else if (line.subarray(0, PREFIX.length).equals(PREFIX)) {
      const parts = components(line.subarray(PREFIX.length));
      const name = parts.map(decodeName).join('/');
      patterns.set(name, parts.map((p) => (isUtf8(p) ? p.toString('utf8') : p.toString('latin1').replace(/[\x80-\xff]+/g, '*'))).join('/'));
      lines.push(`Path = ${name}`);
    } else lines.push(decodeName(line));
  }
  return { text: lines.join('\n'), patterns };
}
