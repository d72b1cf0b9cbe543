/**
 * The sandbox a decoder of hostile files runs in (docs/audio.md, "The sandbox"): the least ffmpeg
 * needs to turn its stdin into its stdout. One command line, outermost first:
 * - `setpriv`: an unprivileged user (nobody, 65534:65534, when the server runs as root; the server's
 *   own user otherwise), no supplementary groups, no capabilities (inheritable, ambient, bounding),
 *   no_new_privs (no setuid program can give any back);
 * - `prlimit`: the kernel's limits on the process (CPU seconds, address space, no file written, no core);
 * - `bwrap` (Debian's bubblewrap): new user, network, PID, IPC, UTS and cgroup namespaces (no network
 *   at all: not even loopback is up), a new session (no terminal), killed with its parent; a file
 *   system of its own that holds only /usr (read-only; /bin, /lib, /lib64 as links into it), the
 *   dynamic loader's cache and the library alternatives it points through, a minimal /dev and /proc
 *   of its own PID namespace: no /etc/passwd, /home, /tmp, the data folder or the jobs database;
 * - a shell step that closes every descriptor but 0, 1 and 2 before ffmpeg starts, so none the server
 *   inherited (or opened without close-on-exec) reaches the decoder: only its pipes.
 * The environment is emptied (`PATH` and `LC_ALL=C` only). Where bubblewrap is missing, or cannot make
 * its namespaces here, transcoding is refused (fail closed): transcode.ts `transcoding()` says so.
 */

/** The user and group the decoder runs as when the server is root: Debian's `nobody`/`nogroup`. */
export const SANDBOX_UID = 65534;
/** The only paths programs are found on (the environment is emptied). */
export const SAFE_PATH = '/usr/local/bin:/usr/bin:/bin';
/** The environment a sandboxed program gets. */
export const SANDBOX_ENV = { PATH: SAFE_PATH, LC_ALL: 'C' } as const;

export interface SandboxLimits {
  /** RLIMIT_AS, bytes. */
  memoryBytes: number;
  /** RLIMIT_CPU, seconds. */
  cpuSec: number;
}

/** Closes every descriptor above 2, then runs its arguments (inside the sandbox: its /proc is its own). */
const CLOSE_FDS = 'for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$@"';

/** Whether this process may change its user (only root switches to SANDBOX_UID). */
function dropsUser(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The command and arguments that run `program args…` in the sandbox under `limits`. */
export function sandboxed(program: string, args: readonly string[], limits: SandboxLimits): { command: string; args: string[] } {
  const user = dropsUser() ? [`--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, '--clear-groups'] : [];
  return {
    command: 'setpriv',
    args: [
      ...user,
      '--no-new-privs', '--inh-caps=-all', '--ambient-caps=-all', '--bounding-set=-all', '--',
      'prlimit', `--as=${limits.memoryBytes}`, `--cpu=${limits.cpuSec}`, '--fsize=0', '--core=0', '--',
      'bwrap', '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
      '--ro-bind', '/usr', '/usr',
      '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
      '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
      '--ro-bind-try', '/etc/alternatives', '/etc/alternatives',
      '--dev', '/dev', '--proc', '/proc', '--chdir', '/',
      '--', '/bin/bash', '-c', CLOSE_FDS, 'sandboxed', program, ...args,
    ],
  };
}
