// Command-line flags of the bench scripts: `--name value` and bare switches.
// Deliberately tiny: benches are run by hand with a handful of flags.
const argv = process.argv.slice(2);

/** The value after `--name`, else the default. */
export function flag(name: string, dflt: string): string {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : dflt;
}

/** Whether a bare switch such as `--docker` was given. */
export function hasFlag(name: string): boolean {
  return argv.includes(name);
}
