/**
 * A node's own scratch space under its data dir (the durable bytes — uploads, transcripts, results —
 * are the blob store's: src/blobs/, which keeps them under the same data dir in the embedded mode):
 *   <dataDir>/incoming/        uploads being received (emptied at start; removed when refused)
 *   <dataDir>/jobs/<id>/work/  the upload (S3) and the members unpacked from an archive while the job runs
 */
import path from 'node:path';

export class JobPaths {
  constructor(readonly dataDir: string) {}

  get incoming(): string {
    return path.join(this.dataDir, 'incoming');
  }
  /** Where the embedded blob store keeps accepted uploads (blob keys uploads/…). */
  get uploads(): string {
    return path.join(this.dataDir, 'uploads');
  }
  get jobsDir(): string {
    return path.join(this.dataDir, 'jobs');
  }
  job(id: string): string {
    return path.join(this.jobsDir, id);
  }
  workDir(id: string): string {
    return path.join(this.job(id), 'work');
  }
}
