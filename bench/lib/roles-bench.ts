/**
 * The roles bench: agent identified right on generated two-party scripted calls (bench/lib/scripted-calls.ts,
 * stereo and diarized mono, with recognition errors) and on calls built from real voices through the real
 * ASR: the Asterisk voice (Allison) as the agent, her prompts that sound like an agent's ("Thank you for
 * calling…", "One moment, please.", "Thank you for your patience", "Please hold while I try that
 * extension.") among others, and the LibriVox reader as the customer; stereo with the agent on channel 0
 * or 1, and the same call mixed to mono and diarized.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Transcriber } from '../../src/asr/transcriber.js';
import { diarizeRecording, type DiarizeModels } from '../../src/speakers/diarize.js';
import { decideRoles } from '../../src/speakers/roles.js';
import { decodeWav } from '../../src/stages/decode.js';
import type { Utterance } from '../../src/types.js';
import { scriptedCall } from './scripted-calls.js';

export interface RoleTally {
  calls: number;
  right: number;
  none: number;
  wrong: number;
}

export function generatedRoles(n: number, stereo: boolean): RoleTally {
  const t: RoleTally = { calls: 0, right: 0, none: 0, wrong: 0 };
  for (let s = 0; s < n; s++) {
    const c = scriptedCall(9000 + s, { stereo });
    const d = decideRoles(c.utterances, c.nchannels);
    t.calls++;
    if (!d) t.none++;
    else if (d.roles.get(c.agent) === 'agent') t.right++;
    else t.wrong++;
  }
  return t;
}

const ALLISON = '/usr/share/asterisk/sounds/en_US_f_Allison';
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const SCRIPT = [['one-moment-please', 'queue-thankyou'], ['basic-pbx-ivr-main', 'transfer'], ['pls-hold-while-try', 'queue-thankyou'], ['priv-introsaved', 'one-moment-please']];
const OTHER = ['activated', 'auth-thankyou', 'vm-goodbye', 'queue-holdtime', 'cannot-complete-as-dialed', 'added'];
const READER = ['0870', '0880', '0890', '0920', '0930'];

/**
 * Call n: the agent's prompts (script first) and the reader's sentences in turns, 8 kHz; channel files for
 * the agent (left or right) and the customer, and a mono mix.
 */
function buildRoleCall(dir: string, n: number, agentLeft: boolean): { stereo: string; mono: string } {
  const agentTurns = [...SCRIPT[n % SCRIPT.length]!.slice(0, 1), OTHER[n % OTHER.length]!, SCRIPT[n % SCRIPT.length]![1]!].map((p) => path.join(ALLISON, `${p}.wav`));
  const readerTurns = [0, 1, 2].map((k) => path.join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${READER[(n + k) % READER.length]}.wav`));
  const sides = { agent: [] as string[], customer: [] as string[] };
  // agent, customer, agent, customer, agent, customer: each side silent while the other talks
  for (let k = 0; k < 3; k++) {
    for (const [who, file] of [['agent', agentTurns[k]!], ['customer', readerTurns[k]!]] as const) {
      // named by the turn's speaker: the silence on the other side must not overwrite that side's own turn k
      const own = path.join(dir, `${who}-${n}-${k}-${who}.wav`);
      const quiet = path.join(dir, `${who === 'agent' ? 'customer' : 'agent'}-${n}-${k}-${who}.wav`);
      execFileSync('sox', ['-V1', file, '-r', '8000', '-c', '1', '-b', '16', own, 'pad', '0', '0.4']);
      const secs = execFileSync('soxi', ['-D', own], { encoding: 'utf8' }).trim();
      execFileSync('sox', ['-V1', '-n', '-r', '8000', '-c', '1', '-b', '16', quiet, 'trim', '0', secs]);
      sides[who].push(own);
      sides[who === 'agent' ? 'customer' : 'agent'].push(quiet);
    }
  }
  const a = path.join(dir, `agent-${n}.wav`);
  const c = path.join(dir, `customer-${n}.wav`);
  execFileSync('sox', ['-V1', ...sides.agent, a]);
  execFileSync('sox', ['-V1', ...sides.customer, c]);
  const stereo = path.join(dir, `call-${n}.wav`);
  execFileSync('sox', ['-V1', '-M', ...(agentLeft ? [a, c] : [c, a]), '-e', 'mu-law', '-b', '8', stereo]);
  const mono = path.join(dir, `mono-${n}.wav`);
  execFileSync('sox', ['-V1', '-m', a, c, '-e', 'mu-law', '-b', '8', mono]);
  return { stereo, mono };
}

export async function realVoiceRoles(asr: Transcriber, models: DiarizeModels, calls: number): Promise<{ stereo: RoleTally; mono: RoleTally }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-roles-'));
  const stereo: RoleTally = { calls: 0, right: 0, none: 0, wrong: 0 };
  const mono: RoleTally = { calls: 0, right: 0, none: 0, wrong: 0 };
  const score = (t: RoleTally, utts: Utterance[], nch: number, agent: (u: Utterance) => boolean) => {
    const d = decideRoles(utts, nch);
    t.calls++;
    if (!d) return void t.none++;
    const ok = utts.every((u) => (d.roles.get(u.metadata.speaker ?? String(u.metadata.channel)) === 'agent') === agent(u));
    if (ok) t.right++;
    else t.wrong++;
  };
  try {
    for (let n = 0; n < calls; n++) {
      const agentLeft = n % 2 === 0;
      const f = buildRoleCall(dir, n, agentLeft);
      const st = await decodeWav(f.stereo);
      const r = await asr.transcribe(st, { model: 'auto', source: 'bench' });
      score(stereo, r.utterances, 2, (u) => u.metadata.channel === (agentLeft ? 0 : 1));
      const mo = await decodeWav(f.mono);
      const m = await asr.transcribe(mo, { model: 'auto', source: 'bench' });
      const d = await diarizeRecording(models, [{ channel: 0, sampleRate: 8000, samples: mo.channels[0]!, utterances: m.utterances }], { diarize: true, gender: false });
      // truth for mono: the agent speaks in the agent's stereo channel at that time
      const agentSamples = st.channels[agentLeft ? 0 : 1]!;
      const agentAt = (u: Utterance) => {
        let e = 0;
        let o = 0;
        const other = st.channels[agentLeft ? 1 : 0]!;
        for (let i = Math.floor(u.start * 8000); i < Math.min(agentSamples.length, Math.floor(u.end * 8000)); i++) [e, o] = [e + agentSamples[i]! ** 2, o + other[i]! ** 2];
        return e > o;
      };
      score(mono, d.utterances, 1, agentAt);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { stereo, mono };
}
