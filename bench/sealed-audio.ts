/**
 * What sealing audio at rest costs (docs/redaction.md, "Audio at rest"): a 10-minute 8 kHz stereo
 * mu-law call (9.6 MB), and a zip of it, through the steps the service runs on every upload —
 * sealing it as it arrives, decoding it, unpacking an archive — sealed against the same step on a
 * plain file (the peer: what voxdex did before sealing), in the same run. Outputs are compared first
 * (the sealed path must give the very samples and members the plain path gives), then each step is
 * timed REPS times, alternating, in CPU time of this process (process.cpuUsage; 7z's own CPU is not
 * in it and is the same for both). The cost is also given per second of audio, beside the ASR's
 * (0.194 CPU s per audio s for en-us-moonshine, docs/redaction.md "Measured").
 *
 *   nice node --import tsx bench/sealed-audio.ts [seconds=600] [reps=5]
 */
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withArchiveInput } from '../src/audio/archive-input.js';
import { bufferSource, fileSource, readAll, type ByteSource } from '../src/audio/byte-source.js';
import { listArchive } from '../src/audio/seven-zip.js';
import { AudioSeal } from '../src/audio/sealed-file.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';
import { isFailedItem, unpack } from '../src/stages/unpack.js';
import { makeCall, makeTempDir, makeZip, removeDir } from '../test/fixtures/make-audio.js';

const seconds = Number(process.argv[2] ?? 600);
const reps = Number(process.argv[3] ?? 5);
const ASR_CPU_PER_AUDIO_SEC = 0.194;
const dir = makeTempDir('voxdex-bench-sealed-');
const seal = AudioSeal.ephemeral();
const config = loadConfig({});
const ctx = { jobId: 'bench', signal: new AbortController().signal, log: silentLogger, config };

function cpuMs<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = process.cpuUsage();
  return fn().then((value) => {
    const u = process.cpuUsage(t0);
    return { ms: (u.user + u.system) / 1000, value };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let n = 0;
const fresh = (ext: string) => path.join(dir, `f${n++}${ext}`);

async function unpackAll(source: ByteSource): Promise<Buffer[]> {
  const work = fresh('-work');
  mkdirSync(work);
  const out = await unpack({ source, workDir: work, seal }, ctx);
  const members = await Promise.all(out.items.map((i) => (isFailedItem(i) ? Buffer.alloc(0) : readAll(i.source))));
  for (const i of out.items) if (!isFailedItem(i)) await i.source.close();
  rmSync(work, { recursive: true, force: true });
  return members;
}

try {
  const wav = await makeCall(dir, { seconds, name: 'call.wav' });
  const zip = await makeZip(dir, 'calls.zip', [wav, { path: wav, name: 'copy.wav' }]);
  const bytes = readFileSync(wav);
  const sealedWav = fresh('.sealed');
  await seal.sealFile(bufferSource(bytes), sealedWav);
  const sealedZip = fresh('.sealed');
  await seal.sealFile(fileSource(zip), sealedZip);

  // Correctness first: the sealed path gives the plain path's samples and members.
  const plainAudio = await decodeWav(wav);
  const sealedAudio = await decodeWav(seal.open(sealedWav));
  for (const [c, ch] of plainAudio.channels.entries()) {
    if (!Buffer.from(ch.buffer).equals(Buffer.from(sealedAudio.channels[c]!.buffer))) throw new Error(`channel ${c} differs`);
  }
  const plainMembers = await unpackAll(fileSource(zip));
  const sealedMembers = await unpackAll(seal.open(sealedZip));
  if (plainMembers.length !== 2 || !plainMembers.every((m, i) => m.equals(bytes) && sealedMembers[i]!.equals(m))) throw new Error('unpacked members differ');
  const plainList = await withArchiveInput(fileSource(zip), (a) => listArchive(a, 'zip', undefined));
  const sealedList = await withArchiveInput(seal.open(sealedZip), (a) => listArchive(a, 'zip', undefined));
  if (JSON.stringify(plainList) !== JSON.stringify(sealedList)) throw new Error('archive listings differ');

  const steps: Array<{ name: string; plain: () => Promise<unknown>; sealed: () => Promise<unknown> }> = [
    {
      name: 'store the upload (plain: read it; sealed: seal it to a file)',
      plain: async () => readAll(fileSource(wav)),
      sealed: async () => seal.sealFile(fileSource(wav), fresh('.sealed')),
    },
    { name: 'decode the WAV', plain: () => decodeWav(wav), sealed: () => decodeWav(seal.open(sealedWav)) },
    { name: 'list the zip (7z; sealed: via memfd)', plain: () => withArchiveInput(fileSource(zip), (a) => listArchive(a, 'zip', undefined)), sealed: () => withArchiveInput(seal.open(sealedZip), (a) => listArchive(a, 'zip', undefined)) },
    { name: 'unpack the zip (2 members) and read them', plain: () => unpackAll(fileSource(zip)), sealed: () => unpackAll(seal.open(sealedZip)) },
  ];
  console.log(`command: nice node --import tsx bench/sealed-audio.ts ${seconds} ${reps}`);
  console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`input: ${seconds} s of 8 kHz stereo mu-law, ${(statSync(wav).size / 1e6).toFixed(1)} MB; zip of 2 copies ${(statSync(zip).size / 1e6).toFixed(1)} MB; outputs checked equal`);
  console.log('step | plain CPU ms (median) | sealed CPU ms | added ms | added CPU s per audio s | % of ASR');
  for (const step of steps) {
    const plain: number[] = [];
    const sealed: number[] = [];
    for (let r = 0; r < reps; r++) {
      plain.push((await cpuMs(step.plain)).ms);
      sealed.push((await cpuMs(step.sealed)).ms);
    }
    const added = median(sealed) - median(plain);
    const audioSec = step.name.includes('zip') ? 2 * seconds : seconds;
    const perSec = added / 1000 / audioSec;
    console.log(`${step.name} | ${median(plain).toFixed(1)} | ${median(sealed).toFixed(1)} | ${added.toFixed(1)} | ${perSec.toExponential(2)} | ${((100 * perSec) / ASR_CPU_PER_AUDIO_SEC).toFixed(3)} %`);
  }
} finally {
  removeDir(dir);
}
