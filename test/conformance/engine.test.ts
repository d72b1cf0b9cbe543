/** The engine conformance suite on both engines, through src/asr/engines as a worker thread loads them. */
import { toEngineDesc } from '../../src/asr/binding.js';
import type { MoonshineDesc, PocketSphinxDesc } from '../../src/asr/engines/engine.js';
import { loadMoonshineEngine } from '../../src/asr/engines/moonshine.js';
import { loadPocketSphinx } from '../../src/asr/engines/pocketsphinx.js';
import { loadModelRegistry } from '../../src/asr/models.js';
import { loadConfig } from '../../src/config.js';
import { engineConformance } from './engine.conformance.js';

const registry = loadModelRegistry(loadConfig({}).modelsFile);
const telephony = toEngineDesc(registry.resolve('en-us-8k', 8000)) as PocketSphinxDesc;

engineConformance('pocketsphinx (en-us-8k)', {
  load: () => loadPocketSphinx(telephony),
  expected: /\bonly person in this conference$/,
});

const moonshine = registry.resolve('en-us-moonshine', 8000);
engineConformance('moonshine (en-us-moonshine, aligned with en-us-8k)', {
  load: () => loadMoonshineEngine(toEngineDesc(moonshine) as MoonshineDesc, { aligner: loadPocketSphinx }),
  request: { aligner: toEngineDesc(registry.aligner(moonshine, 8000)!) as PocketSphinxDesc },
  expected: /^you are currently the only person in this conference$/,
});
