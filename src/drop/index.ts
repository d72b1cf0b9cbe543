/** Intake outside HTTP (API.md §7): the drop folder watcher, the sha256 ledger, the Submitter boundary. */
export { DropFolderWatcher, DONE_DIR, FAILED_DIR, type DropEvent, type DropFolderOptions } from './drop-folder.js';
export { ensureDropFolders, isCandidateName, sha256File, sidecarPath } from './files.js';
export { intakeFile, type IntakeResult } from './intake.js';
export { SubmissionLedger, type LedgerEntry, type LedgerState } from './ledger.js';
export type { SubmitInput, Submitter } from './submitter.js';
