/**
 * Command-line arguments of one `voxdex` command: `--name value` / `--name=value` options (repeatable),
 * flags, positional arguments within a count, `--help`/`-h` anywhere, `--` ending the options (and, where
 * the command says so, positional arguments that start with one `-`).
 * Anything else is a usage error (BAD_ARGUMENT, exit 2) that names the problem and prints the
 * command's usage line: no command ever runs on arguments it does not understand.
 */
import { voxdexError } from '../errors.js';

export interface CommandSpec {
  /** The usage line without "Usage: ", e.g. "voxdex org add CO_SHORT ORG_SHORT". */
  usage: string;
  /** What it does, one or a few lines (shown by --help). */
  about: string;
  /** Options (and what they mean) shown by --help. */
  options?: Array<[string, string]>;
  /** Positional arguments: at least, at most. */
  positional: [number, number];
  /** Options that take a value. */
  valued?: readonly string[];
  /** Options without a value. */
  flags?: readonly string[];
  /** Options that are `--name` (true) or `--name=VALUE` (the value, checked by the command): collected in `opts`. */
  booleans?: readonly string[];
  /**
   * Arguments that start with one `-` (`-cancel`, `-"my card"`: a NOT in search terms) are positional,
   * not unknown options; `-h` is still help, and one that starts with `--` still needs `--` before it.
   */
  dashPositional?: boolean;
}

export interface ParsedArgs {
  positional: string[];
  opts: Record<string, string[]>;
  flags: Set<string>;
}

/** Throws the usage error: the problem, then the usage line. */
export function usageError(spec: Pick<CommandSpec, 'usage'>, problem: string): never {
  throw voxdexError('BAD_ARGUMENT', `${problem}\nUsage: ${spec.usage}\nAdd --help for the options.`);
}

/** The text --help prints for a command. */
export function helpText(spec: CommandSpec): string {
  const lines = [`Usage: ${spec.usage}`, '', spec.about];
  if (spec.options?.length) {
    lines.push('', 'Options:');
    const width = Math.max(...spec.options.map(([o]) => o.length));
    for (const [o, what] of spec.options) lines.push(`  ${o.padEnd(width)}  ${what}`);
  }
  lines.push(`  ${'--help'.padEnd(Math.max(6, ...(spec.options ?? []).map(([o]) => o.length)))}  this text`);
  return lines.join('\n');
}

/** Parses argv for `spec`; returns 'help' when --help or -h is among the arguments. */
export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs | 'help' {
  if (argv.some((a, i) => (a === '--help' || a === '-h') && !argv.slice(0, i).includes('--'))) return 'help';
  const positional: string[] = [];
  const opts: Record<string, string[]> = {};
  const flags = new Set<string>();
  let onlyPositional = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (onlyPositional || !a.startsWith('-') || a === '-' || (spec.dashPositional && !a.startsWith('--'))) {
      positional.push(a);
      continue;
    }
    if (a === '--') {
      onlyPositional = true;
      continue;
    }
    if (!a.startsWith('--')) usageError(spec, `Unknown option ${a}`);
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (spec.booleans?.includes(name)) {
      (opts[name] ??= []).push(inline ?? 'true');
    } else if (spec.flags?.includes(name)) {
      if (inline !== undefined) usageError(spec, `--${name} takes no value`);
      flags.add(name);
    } else if (spec.valued?.includes(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) usageError(spec, `--${name} needs a value`);
      (opts[name] ??= []).push(v);
    } else usageError(spec, `Unknown option --${name}`);
  }
  const [min, max] = spec.positional;
  if (positional.length > max) usageError(spec, `Unexpected argument ${JSON.stringify(positional[max])}`);
  if (positional.length < min) usageError(spec, 'Missing arguments');
  return { positional, opts, flags };
}
