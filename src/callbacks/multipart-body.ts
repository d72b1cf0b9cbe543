/**
 * Builds a multipart/form-data body as one Buffer (so the exact bytes can be signed and resent
 * unchanged on every retry). Field order: `requestid`, then `file`.
 */
import { randomBytes } from 'node:crypto';

interface MultipartFile {
  filename: string;
  contentType: string;
  data: Uint8Array;
}

interface MultipartBody {
  body: Buffer;
  contentType: string;
}

export function buildMultipart(fields: Record<string, string>, file: { name: string } & MultipartFile, boundary?: string): MultipartBody {
  let b = boundary ?? `voxdex-${randomBytes(12).toString('hex')}`;
  // A boundary must not occur in the content; with 96 random bits it practically never does.
  while (Buffer.from(file.data).includes(`--${b}`) || Object.values(fields).some((v) => v.includes(`--${b}`))) {
    b = `voxdex-${randomBytes(12).toString('hex')}`;
  }
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="${quote(file.name)}"; filename="${quote(file.filename)}"\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
    ),
  );
  parts.push(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength));
  parts.push(Buffer.from(`\r\n--${b}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${b}` };
}

function quote(s: string): string {
  return s.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c));
}
