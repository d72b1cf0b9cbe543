/**
 * voxdex's PostgreSQL schema, as versioned migrations (applied by pg-migrations.ts). The tables mirror
 * the embedded SQLite ones (jobs, items, callback outbox, submission ledger, tenancy) plus what
 * several nodes need: a lease on running jobs (owner + expiry, renewed by the worker's heartbeat), a
 * not-before time for retries, shared rate-limit buckets, the installation's shared secrets, and
 * statement triggers that NOTIFY listeners (workers wake on new jobs and callbacks, every node reloads
 * tenancy when it changes).
 *
 * Append-only: a shipped migration is never edited; add version N+1.
 */
import type { Migration } from './pg-migrations.js';

const V1 = `
CREATE TABLE jobs (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  company TEXT NOT NULL, org TEXT NOT NULL, folder TEXT NOT NULL,
  model TEXT NOT NULL, output TEXT NOT NULL,
  callback TEXT, callback_error TEXT, metadata TEXT, datetime TEXT NOT NULL,
  source TEXT NOT NULL, kind TEXT NOT NULL, upload_path TEXT NOT NULL, zpass TEXT, warning TEXT,
  size_bytes BIGINT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  created TIMESTAMPTZ NOT NULL, started TIMESTAMPTZ, finished TIMESTAMPTZ,
  progress DOUBLE PRECISION NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT, result_path TEXT,
  -- distributed mode: who runs the job and until when its lease holds; retries wait until not_before;
  -- a cancel asked on another node is seen by the owner's heartbeat (and a NOTIFY on voxdex_cancel)
  -- lease_owner stays after the job ends: the worker that ran it last; claimed_at: its last claim
  lease_owner TEXT, lease_until TIMESTAMPTZ, claimed_at TIMESTAMPTZ, not_before TIMESTAMPTZ,
  cancel_requested BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX jobs_queued ON jobs (seq) WHERE state = 'queued';
CREATE INDEX jobs_running ON jobs (lease_until) WHERE state = 'running';
CREATE INDEX jobs_state ON jobs (state);

CREATE TABLE items (
  request_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  member TEXT NOT NULL, idx INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0, error TEXT, tid TEXT, audiosecs DOUBLE PRECISION, transcript_path TEXT,
  PRIMARY KEY (request_id, member)
);

CREATE TABLE callback_deliveries (
  id TEXT PRIMARY KEY, requestid TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('result', 'error')),
  company TEXT NOT NULL, url TEXT NOT NULL, body BYTEA, body_path TEXT,
  content_type TEXT NOT NULL, filename TEXT NOT NULL, secret TEXT,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'inflight', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at BIGINT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, last_error TEXT,
  -- an attempt in flight belongs to one node until lease_until (ms epoch); a dead node's are taken back
  lease_owner TEXT, lease_until BIGINT,
  UNIQUE (requestid, kind)
);
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX callback_deliveries_inflight ON callback_deliveries (lease_until) WHERE state = 'inflight';
CREATE TABLE callback_attempts (
  delivery_id TEXT NOT NULL REFERENCES callback_deliveries (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL, started_at BIGINT NOT NULL,
  duration_ms INTEGER, status INTEGER, error TEXT,
  PRIMARY KEY (delivery_id, attempt)
);

CREATE TABLE intake_files (
  company TEXT NOT NULL, org TEXT NOT NULL, folder TEXT NOT NULL, sha256 TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('submitting', 'submitted', 'failed')),
  requestid TEXT, source TEXT NOT NULL, path TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, error TEXT,
  PRIMARY KEY (company, org, folder, sha256)
);

CREATE TABLE companies (
  name TEXT PRIMARY KEY, default_org TEXT NOT NULL, default_folder TEXT NOT NULL,
  callback_secret TEXT NOT NULL, models TEXT NOT NULL DEFAULT '[]', created TEXT NOT NULL
);
CREATE TABLE orgs (company TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (company, name));
CREATE TABLE folders (company TEXT NOT NULL, org TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (company, org, name));
CREATE TABLE tokens (hash TEXT PRIMARY KEY, company TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE model_aliases (company TEXT NOT NULL, alias TEXT NOT NULL, model TEXT NOT NULL, PRIMARY KEY (company, alias));

-- Secrets every node must share: the HMAC key of signed result links, the root token's hash.
CREATE TABLE installation (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Token buckets of the rate limits, shared by every API node (one row per limit and principal).
CREATE TABLE rate_buckets (
  limiter TEXT NOT NULL, principal TEXT NOT NULL,
  tokens DOUBLE PRECISION NOT NULL, at BIGINT NOT NULL,
  PRIMARY KEY (limiter, principal)
);

-- The payload is the writer's application_name (unique per voxdex process), so a process can tell
-- its own changes (it wakes itself directly) from other nodes'.
CREATE FUNCTION voxdex_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_ARGV[0], current_setting('application_name'));
  RETURN NULL;
END $$;
-- Row triggers with a WHEN: only a job that becomes claimable or a callback that becomes due wakes
-- anyone (PostgreSQL folds the identical notifications of one transaction into one).
CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OF state, not_before ON jobs
  FOR EACH ROW WHEN (NEW.state = 'queued') EXECUTE FUNCTION voxdex_notify('voxdex_jobs');
CREATE TRIGGER callbacks_notify AFTER INSERT OR UPDATE OF state, next_at ON callback_deliveries
  FOR EACH ROW WHEN (NEW.state = 'pending') EXECUTE FUNCTION voxdex_notify('voxdex_callbacks');
CREATE TRIGGER companies_notify AFTER INSERT OR UPDATE OR DELETE ON companies FOR EACH STATEMENT EXECUTE FUNCTION voxdex_notify('voxdex_tenancy');
CREATE TRIGGER orgs_notify AFTER INSERT OR UPDATE OR DELETE ON orgs FOR EACH STATEMENT EXECUTE FUNCTION voxdex_notify('voxdex_tenancy');
CREATE TRIGGER folders_notify AFTER INSERT OR UPDATE OR DELETE ON folders FOR EACH STATEMENT EXECUTE FUNCTION voxdex_notify('voxdex_tenancy');
CREATE TRIGGER tokens_notify AFTER INSERT OR UPDATE OR DELETE ON tokens FOR EACH STATEMENT EXECUTE FUNCTION voxdex_notify('voxdex_tenancy');
CREATE TRIGGER aliases_notify AFTER INSERT OR UPDATE OR DELETE ON model_aliases FOR EACH STATEMENT EXECUTE FUNCTION voxdex_notify('voxdex_tenancy');
`;

/** GET /transcribe/requests: a company's most recent requests. */
const V2 = `CREATE INDEX jobs_company ON jobs (company, seq);`;

/** The request's options after company policy (JSON), read by the post-ASR stages. */
const V3 = `ALTER TABLE jobs ADD COLUMN options TEXT;`;

/** Company settings (tenancy/company-settings.ts): one JSON value per company, reloaded by every node like the other tenancy tables. */
const V4 = `
CREATE TABLE company_settings (company TEXT PRIMARY KEY, settings TEXT NOT NULL);
CREATE TRIGGER company_settings_notify AFTER INSERT OR UPDATE OR DELETE ON company_settings FOR EACH STATEMENT EXECUTE FUNCTION voxdex_notify('voxdex_tenancy');
`;

/** The upload's sha256 (the jobs page tells the same recording sent twice, issue 28). */
const V5 = `
ALTER TABLE jobs ADD COLUMN content_hash TEXT;
CREATE INDEX jobs_content ON jobs (company, content_hash, seq) WHERE content_hash IS NOT NULL;
`;

/** A job's priority (src/scheduler.ts): the shared queue is claimed highest first (a live call's job ahead of uploads). */
const V6 = `ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;`;

export const PG_SCHEMA: readonly Migration[] = [
  { version: 1, name: 'jobs, items, callback outbox, submission ledger, tenancy, rate limits', sql: V1 },
  { version: 2, name: 'jobs by company, newest first (the web UI\'s recent requests)', sql: V2 },
  { version: 3, name: 'request options per job (numtrans, scrubtext, diarize, ...)', sql: V3 },
  { version: 4, name: 'company settings (redaction policy, option defaults, vocabulary)', sql: V4 },
  { version: 5, name: 'content hash of each upload (the same recording sent twice)', sql: V5 },
  { version: 6, name: 'job priority (a live call ahead of uploads)', sql: V6 },
];
