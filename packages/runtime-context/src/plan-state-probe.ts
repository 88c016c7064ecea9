import type { RuntimeState, StateName } from '@junobench/core';

/** The line the probe prints its JSON after: anything else a repr printed on stdout is ignored. */
export const STATE_MARKER = '__junobench_state__:';
/** What one name's repr may hold in a prompt. */
export const STATE_REPR_CHARS = 200;
/** A table's columns listed at most. */
export const STATE_MAX_COLUMNS = 50;
/** Names described at most per target (a cell that reads hundreds of names is rare; its prompt stays readable). */
export const STATE_MAX_NAMES = 40;

/**
 * The probe's Python (the run's `finish` step: after the cells before the target, in the same kernel, silently): the
 * names the target cell's code reads (IPython's transformation first, so magics parse; then every `Name` loaded, in
 * source order), and for each one defined in the user's namespace its type, shape, dtype, columns, length and a short
 * repr. The target's code is parsed, never executed. Everything runs inside one function that is deleted afterwards, so
 * the user's namespace is as the cells left it.
 */
export function planStateProbe(target: string): string {
  return `
def __junobench_state_probe(code):
    import ast, json, re
    ip = get_ipython()
    ns = ip.user_ns
    hidden = set(getattr(ip, "user_ns_hidden", {}))
    try:
        tree = ast.parse(ip.transform_cell(code))
    except Exception:
        tree = None
    found = []
    if tree is not None:
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)]
        nodes.sort(key=lambda n: (n.lineno, n.col_offset))
        for n in nodes:
            if n.id not in found:
                found.append(n.id)
    def cut(text):
        # Addresses differ from run to run: the same notebook must give the same prompt.
        text = re.sub(r" at 0x[0-9A-Fa-f]+", "", text)
        return text if len(text) <= ${STATE_REPR_CHARS} else text[:${STATE_REPR_CHARS - 1}] + "\\u2026"
    def describe(name, v):
        t = type(v)
        mod = getattr(t, "__module__", "") or ""
        d = {"name": name, "type": (t.__qualname__ if mod == "builtins" else mod + "." + t.__qualname__)}
        if t.__name__ == "module":
            d["repr"] = "<module " + str(getattr(v, "__name__", name)) + ">"
            return d
        if isinstance(v, type):
            d["repr"] = "<class " + str(getattr(v, "__module__", "")) + "." + str(getattr(v, "__qualname__", name)) + ">"
            return d
        try:
            shape = getattr(v, "shape", None)
            if shape is not None and not callable(shape):
                shape = [int(x) for x in tuple(shape)]
                d["shape"] = shape
        except Exception:
            pass
        try:
            dtype = getattr(v, "dtype", None)
            if dtype is not None and not callable(dtype):
                d["dtype"] = str(dtype)
        except Exception:
            pass
        try:
            cols = getattr(v, "columns", None)
            if cols is not None and not callable(cols) and not isinstance(cols, (str, bytes)):
                d["columns"] = [str(c) for c in list(cols)[:${STATE_MAX_COLUMNS}]]
        except Exception:
            pass
        try:
            if hasattr(v, "__len__"):
                d["length"] = int(len(v))
        except Exception:
            pass
        try:
            d["repr"] = cut(repr(v))
        except Exception:
            d["repr"] = "<repr unavailable>"
        return d
    out = []
    for name in found:
        if name in ns and name not in hidden and len(out) < ${STATE_MAX_NAMES}:
            out.append(describe(name, ns[name]))
    print("${STATE_MARKER}" + json.dumps({"names": out}))

try:
    __junobench_state_probe(${JSON.stringify(target)})
finally:
    del __junobench_state_probe
`;
}

/** The names the probe described, from its stdout; undefined when it printed no well-formed state. */
export function parseStateProbe(stdout: string): StateName[] | undefined {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(STATE_MARKER));
  if (line === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(STATE_MARKER.length));
  } catch {
    return undefined;
  }
  const names = (value as { names?: unknown }).names;
  if (!Array.isArray(names)) return undefined;
  const out: StateName[] = [];
  for (const n of names as Record<string, unknown>[]) {
    if (typeof n?.name !== 'string' || typeof n.type !== 'string' || typeof n.repr !== 'string') return undefined;
    out.push({
      name: n.name,
      type: n.type,
      ...(Array.isArray(n.shape) && n.shape.every((x) => Number.isInteger(x)) ? { shape: n.shape as number[] } : {}),
      ...(typeof n.dtype === 'string' ? { dtype: n.dtype } : {}),
      ...(Array.isArray(n.columns) ? { columns: (n.columns as unknown[]).map(String) } : {}),
      ...(Number.isInteger(n.length) && (n.length as number) >= 0 ? { length: n.length as number } : {}),
      repr: n.repr,
    });
  }
  return out;
}

/** The state of a run that did not reach the target: no names, and why (the status only, never an error message). */
export function uncapturedState(reason: string): RuntimeState {
  return { captured: false, reason, names: [] };
}
