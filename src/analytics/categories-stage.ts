/**
 * The categories stage, last of the stage table (src/pipeline/stage-table.ts; docs/analytics.md): the
 * company's categories the call is in (`categories` in the document, before it is persisted) and, on a
 * live call, the same question over the call so far each time utterances are sent (the `category`
 * alerts). Both ask the categorizer (categories.ts) about the call as it is sent: after redaction,
 * roles included, so a role-limited category alerts live as it matches at the end.
 */
import type { Destination, FileWork, PipelineStage, TranscriptDocument, Utterance } from '../types.js';

/** The company's categories a document is in (categories.ts `categorizer`). */
export type Categorize = (destination: Destination, document: TranscriptDocument) => Promise<string[]>;

/** A call's utterances as the categorizer reads them (a document of its words, in time order). */
export function categoryDocument(requestid: string, utterances: readonly Utterance[], nchannels: number): TranscriptDocument {
  const sorted = [...utterances].sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel);
  return { requestid, utterances: sorted, nchannels } as TranscriptDocument;
}

/** Without a categorizer (or a destination: `voxdex transcribe`), the stage does nothing. */
export function categoriesStage(categorize?: Categorize): PipelineStage {
  return {
    name: 'categories',
    call: async (work: FileWork) => {
      if (!categorize || !work.destination) return work;
      const categories = await categorize(work.destination, categoryDocument(work.requestid, work.result.utterances, work.result.nchannels));
      return { ...work, summary: { ...work.summary, categories } };
    },
    ...(categorize ? { soFar: categorize } : {}),
  };
}
