"""The checks harness, run inside the notebook's kernel (docs/checks.md).

The toolchain sends this file's text as a run's probe: `setup` executes it in a
private namespace before the first cell, with CONFIG set, and `finish` calls
`finish(nonce, checks)` on the object it leaves in sys.modules after the last
cell. Between the two it records, for the cells only:

- evidence of hiding: every exception of the instance's labelled class that
  reached a frame of the notebook's own code (cells, code they exec, files
  outside the Python installation) while the run still completed: something
  swallowed it, whatever built the handler; every function, method or
  attribute of a library module (numpy, pandas, sklearn, torch, ...) that the
  notebook's code replaced; and the notebook switching the tracing off;
- what the cells printed and the matplotlib figures they drew (the inline
  backend closes them after each cell), for the checks and for snapshots;
- with CONFIG["snapshotFrom"], the names the cells from that position on bound
  or changed, summarised (types, shapes, dtypes, columns, missing values, value
  summaries), for `junobench checks suggest`.

`finish` prints one line per result, each `__junobench_checks__:<nonce> <json>`:
the evidence, the snapshot, then each check of checks.py (a function named
check_*, whose docstring's first line is its reason) run in a copy of the
notebook's namespace, and a last `{"done": true}`.

Costs: sys.settrace makes CPython 3.11 take its slower dispatch path in every
frame while it is on; the trace function itself is called for each new frame
and returns at once for library code, and traces nothing but exceptions
(no line events) in the notebook's own frames (bench/checks, tracing cost).
"""

import functools
import json
import math
import os
import sys
import sysconfig
import threading
import time
import types

MARK = "__junobench_checks__:"
MODULE = "__junobench_checks__"
MAX_EVIDENCE = 20
PRINTED_LIMIT = 1 << 20
_MISSING = object()


def _unwrap(v):
    for _ in range(4):
        if isinstance(v, (staticmethod, classmethod, types.MethodType)):
            v = v.__func__
        elif isinstance(v, functools.partial):
            v = v.func
        elif isinstance(v, property):
            v = v.fget
        else:
            break
    return v


def _name_of(v):
    try:
        return getattr(_unwrap(v), "__name__", None)
    except Exception:  # noqa: BLE001
        return None


def _library_dirs():
    dirs = set()
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            dirs.add(paths[key])
    for p in sys.path:
        if p and ("site-packages" in p or "dist-packages" in p or p.startswith(sys.base_prefix + os.sep + "lib")):
            dirs.add(p)
    dirs.add(os.path.dirname(os.__file__))
    for mod in ("jbrunner", "IPython", "ipykernel"):
        m = sys.modules.get(mod)
        f = getattr(m, "__file__", None) if m else None
        if f:
            dirs.add(os.path.dirname(os.path.dirname(f)))
    out = set()
    for d in dirs:
        for form in (d, os.path.realpath(d)):
            out.add(form.rstrip(os.sep) + os.sep)
    return tuple(sorted(out))


class Harness:
    def __init__(self, config):
        from IPython import get_ipython

        self.ip = get_ipython()
        self.user_ns = self.ip.user_ns
        self.ename = config.get("ename") or None
        self.libraries = tuple(config.get("libraries") or ())
        self.snapshot_from = config.get("snapshotFrom")
        self.lib_dirs = _library_dirs()
        # IPython runs each cell's code from run_code: whatever its file name (ipykernel's temporary file, plain
        # IPython's <ipython-input-…>), code it runs from there is a cell's.
        try:
            self.cell_runner = type(self.ip).run_code.__code__
        except AttributeError:
            self.cell_runner = None
        self.position = -1
        self.active = True
        self.files = {}
        self.kinds = {}
        self.labelled = {}
        self.seen = {}
        self.evidence = []
        self.snaps = []
        self.snapped = set()
        self.n_modules = -1
        self.figures = []
        self.printed = []
        self.printed_chars = 0
        self.shown = []
        self.before = None
        # What finish uses, taken before any cell can replace it.
        self._dumps = json.dumps
        self._stdout = sys.stdout
        self._write = sys.stdout.write
        self._settrace = sys.settrace
        self._gettrace = sys.gettrace
        self._perf = time.perf_counter

    # -- installation ---------------------------------------------------------

    def install(self):
        self._snapshot_libraries()
        events = self.ip.events
        events.register("pre_run_cell", self._pre_run_cell)
        # First, before the inline backend's flush closes the cell's figures.
        events.callbacks["post_execute"].insert(0, self._post_execute)
        # plt.show() in the inline backend displays each figure and closes it, in the cell: catch them as displayed.
        formatter = self.ip.display_formatter
        format_ = formatter.format

        def format_and_keep(obj, *args, **kwargs):
            self._keep_figure(obj)
            data = format_(obj, *args, **kwargs)
            if self.snapshot_from is not None:
                self._keep_shown(data)
            return data

        try:
            formatter.format = format_and_keep
        except Exception:  # noqa: BLE001 - figures are then only those still open after each cell
            pass
        out = self._stdout
        write = self._write

        def tee(text):
            self._capture(text)
            return write(text)

        try:
            out.write = tee
        except Exception:  # noqa: BLE001 - a stream without a __dict__: printed output is not captured
            pass
        sys.addaudithook(self._audit)
        self.tracer = self._make_tracer()
        threading.settrace(self.tracer)
        sys.settrace(self.tracer)

    # -- tracing --------------------------------------------------------------

    def _make_tracer(self):
        """The global trace function, called for every new frame: one dict lookup on the frame's file name decides
        library code (no tracing) from the notebook's own; only code from <pseudo-files> is looked at one by one."""
        files = self.files
        kinds = self.kinds
        local = self._local
        classify_file = self._classify_file
        classify_pseudo = self._classify_pseudo

        def tracer(frame, event, arg):
            code = frame.f_code
            fn = code.co_filename
            k = files.get(fn, -1)
            if k == -1:
                k = classify_file(fn)
            if k == 0:
                return None
            if k == 2:
                e = kinds.get(id(code))
                if not (e[1] if e is not None and e[0] is code else classify_pseudo(code, frame)):
                    return None
            frame.f_trace_lines = False
            return local

        return tracer

    def _local(self, frame, event, arg):
        if event == "exception" and self.active:
            cls, exc = arg[0], arg[1]
            hit = self.labelled.get(cls)
            if hit is None:
                hit = self.labelled[cls] = self._is_labelled(cls)
            if hit and id(exc) not in self.seen:
                self.seen[id(exc)] = exc
                try:
                    message = str(exc)
                except Exception:  # noqa: BLE001
                    message = ""
                self._add(
                    {
                        "kind": "swallowed",
                        "ename": "%s.%s" % (cls.__module__, cls.__qualname__) if cls.__module__ != "builtins" else cls.__qualname__,
                        "evalue": message[:300],
                        "position": self.position,
                        "line": frame.f_lineno,
                    }
                )
        return self._local

    def _is_labelled(self, cls):
        if not self.ename:
            return False
        try:
            return any(c.__name__ == self.ename for c in cls.__mro__)
        except Exception:  # noqa: BLE001
            return False

    def _classify_file(self, fn):
        k = 2 if fn.startswith("<") else 0 if fn.startswith(self.lib_dirs) else 1
        self.files[fn] = k
        return k

    def _classify_pseudo(self, code, frame):
        back = frame.f_back
        user = code.co_name == "<module>" and back is not None and (back.f_code is self.cell_runner or self._is_user_code(back.f_code))
        if user:
            self._register(code)
        else:
            self.kinds[id(code)] = (code, False)
        return user

    def _is_user_code(self, code):
        fn = code.co_filename
        k = self.files.get(fn, -1)
        if k == -1:
            k = self._classify_file(fn)
        if k != 2:
            return k == 1
        e = self.kinds.get(id(code))
        return e is not None and e[0] is code and e[1]

    def _register(self, code):
        """Code the notebook's own code compiled and ran (exec, eval): it and every function it defines are its code."""
        stack = [code]
        while stack:
            c = stack.pop()
            self.kinds[id(c)] = (c, True)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))

    def _audit(self, event, args):
        if not self.active:
            return
        if event == "exec":
            caller = sys._getframe(1)
            if caller is not None and args and isinstance(args[0], types.CodeType) and self._is_user_code(caller.f_code):
                self._register(args[0])
        elif event in ("sys.settrace", "sys.setprofile"):
            caller = sys._getframe(1)
            if caller is not None and self._is_user_code(caller.f_code):
                self._add({"kind": "tracing", "what": "the notebook called %s" % event, "position": self.position, "line": caller.f_lineno})

    def _add(self, item):
        if len(self.evidence) < MAX_EVIDENCE:
            self.evidence.append(item)

    # -- cells ----------------------------------------------------------------

    def _pre_run_cell(self, info=None):
        self.position += 1
        self._snapshot_libraries()
        if self.snapshot_from is not None and self.position == self.snapshot_from:
            self.before = {k: self._fingerprint(v) for k, v in self._user_items()}

    def _post_execute(self):
        helpers = sys.modules.get("matplotlib._pylab_helpers")
        if helpers is None:
            return
        try:
            for manager in helpers.Gcf.get_all_fig_managers():
                self._keep_figure(manager.canvas.figure)
        except Exception:  # noqa: BLE001
            pass

    def _keep_figure(self, obj):
        figure = sys.modules.get("matplotlib.figure")
        if self.active and figure is not None and isinstance(obj, figure.Figure):
            if not any(f is obj for _, f in self.figures):
                self.figures.append((self.position, obj))

    def _keep_shown(self, data):
        try:
            text = data[0].get("text/plain") if isinstance(data, tuple) else None
        except Exception:  # noqa: BLE001
            text = None
        if self.active and isinstance(text, str) and len(self.shown) < 1000:
            self.shown.append((self.position, text[:20000]))

    def _capture(self, text):
        if self.active and isinstance(text, str) and self.printed_chars < PRINTED_LIMIT:
            text = text[: PRINTED_LIMIT - self.printed_chars]
            self.printed_chars += len(text)
            if self.printed and self.printed[-1][0] == self.position:
                self.printed[-1][1].append(text)
            else:
                self.printed.append((self.position, [text]))

    # -- library replacement ---------------------------------------------------

    def _is_library_module(self, name):
        return name.split(".", 1)[0] in self.libraries

    def _library_modules(self):
        for name, mod in list(sys.modules.items()):
            if isinstance(mod, types.ModuleType) and self._is_library_module(name):
                yield name, mod

    @staticmethod
    def _watched(v):
        return callable(v) or isinstance(v, (staticmethod, classmethod, property))

    def _snapshot_libraries(self):
        """Each library module's namespace (and its classes'), as first seen: a later change is a replacement."""
        if len(sys.modules) == self.n_modules:
            return
        self.n_modules = len(sys.modules)
        for name, mod in self._library_modules():
            if name in self.snapped:
                continue
            self.snapped.add(name)
            try:
                d = vars(mod)
            except TypeError:
                continue
            self.snaps.append((mod, name, d.copy()))
            for v in list(d.values()):
                if isinstance(v, type) and getattr(v, "__module__", None) == name:
                    try:
                        self.snaps.append((v, "%s.%s" % (name, v.__qualname__), dict(vars(v))))
                    except Exception:  # noqa: BLE001
                        continue

    def _user_made(self, v):
        try:
            f = _unwrap(v)
            if isinstance(f, types.FunctionType):
                code = f.__code__
                e = self.kinds.get(id(code))
                if e is not None and e[0] is code:
                    return e[1]
                if f.__globals__ is self.user_ns:
                    return True
                return self._is_user_code(code)
            if isinstance(f, type):
                return f.__module__ == "__main__"
            return getattr(type(f), "__module__", None) == "__main__"
        except Exception:  # noqa: BLE001
            return False

    def _replacements(self):
        """Functions, methods and attributes of library modules (and of their classes) that the notebook's code
        replaced: a value made by the notebook's code where the library had one, in the namespace itself or in a base
        class. A name the notebook only added is not one; a library's own rebinding (pyplot switching backends) is not
        made by the notebook's code. Where no snapshot tells what existed (a module imported and changed in the same
        cell), a value made by the notebook's code counts as a replacement."""
        snapped = {id(owner): (owner, members) for owner, _, members in self.snaps}
        found = {}
        for name, mod in self._library_modules():
            try:
                classes = [v for v in list(vars(mod).values()) if isinstance(v, type) and getattr(v, "__module__", None) == name]
            except TypeError:
                continue
            for owner in [mod] + classes:
                qual = name if owner is mod else "%s.%s" % (name, owner.__qualname__)
                try:
                    items = list(vars(owner).items())
                except TypeError:
                    continue
                snap = snapped.get(id(owner))
                before = snap[1] if snap is not None and snap[0] is owner else None
                for k, v in items:
                    if not self._user_made(v):
                        continue
                    inherited = isinstance(owner, type) and any(k in vars(b) for b in owner.__mro__[1:])
                    if before is None or k in before or inherited:
                        found["%s.%s" % (qual, k)] = self._origin(v)
        return [{"kind": "replaced", "what": w, "how": how} for w, how in sorted(found.items())]

    def _origin(self, v):
        f = _unwrap(v)
        code = getattr(f, "__code__", None)
        if code is None:
            return "an object of a class the notebook defined"
        return "a function defined in the notebook's code (line %d)" % code.co_firstlineno

    # -- snapshots -------------------------------------------------------------

    def _user_items(self):
        hidden = getattr(self.ip, "user_ns_hidden", {})
        for k, v in list(self.user_ns.items()):
            if k.startswith("_") or k in hidden or k in ("In", "Out", "exit", "quit", "get_ipython"):
                continue
            if isinstance(v, (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType)):
                continue
            yield k, v

    def _fingerprint(self, v):
        try:
            return self._dumps(_describe(v), sort_keys=True, default=str)
        except Exception:  # noqa: BLE001
            return "id:%d" % id(v)

    def _snapshot(self):
        produced = {}
        before = self.before or {}
        for k, v in self._user_items():
            fp = self._fingerprint(v)
            if before.get(k) != fp:
                produced[k] = _describe(v)
        figures = []
        for pos, fig in self.figures:
            if self.snapshot_from is None or pos >= self.snapshot_from:
                figures.append(dict(_describe_figure(fig), position=pos))
        printed = [{"position": p, "text": "".join(t)} for p, t in self.printed]
        shown = [{"position": p, "text": t} for p, t in self.shown if p >= (self.snapshot_from or 0)]
        return {
            "from": self.snapshot_from,
            "reached": self.before is not None,
            "names": produced,
            "figures": figures,
            "printed": printed,
            "shown": shown,
        }

    # -- finish ----------------------------------------------------------------

    def finish(self, nonce, checks):
        tracer_kept = self._gettrace() is self.tracer
        self._settrace(None)
        threading.settrace(None)
        self.active = False
        self._post_execute()
        dumps, write = self._dumps, self._write

        def emit(obj):
            write("%s%s %s\n" % (MARK, nonce, dumps(obj, default=str)))

        evidence = list(self.evidence)
        if not tracer_kept:
            evidence.append({"kind": "tracing", "what": "the tracing installed before the first cell was replaced"})
        evidence.extend(self._replacements())
        emit({"evidence": evidence, "positions": self.position + 1})
        if self.snapshot_from is not None:
            emit({"snapshot": self._snapshot()})
        if checks is not None:
            self._run_checks(checks, emit)
        emit({"done": True})

    def _run_checks(self, source, emit):
        ns = dict(self.user_ns)
        ns["jb"] = Helpers(self)
        ns["__name__"] = "__junobench_checks_file__"
        try:
            exec(compile(source, "checks.py", "exec"), ns)
        except BaseException as e:  # noqa: BLE001 - a broken checks.py fails every check, with its error
            emit({"checksError": "%s: %s" % (type(e).__name__, str(e)[:500])})
            return
        for name, fn in list(ns.items()):
            if not (name.startswith("check_") and isinstance(fn, types.FunctionType) and fn.__code__.co_filename == "checks.py"):
                continue
            doc = (fn.__doc__ or "").strip().splitlines()
            t0 = self._perf()
            result = {"check": name, "reason": doc[0].strip() if doc else ""}
            try:
                value = fn()
                result["passed"] = value is not False
                if value is False:
                    result["error"] = "the check returned False"
            except AssertionError as e:
                result["passed"] = False
                text = str(e)
                result["error"] = "AssertionError" + (": " + text[:500] if text else "")
            except BaseException as e:  # noqa: BLE001 - whatever a check raises, it failed
                result["passed"] = False
                result["error"] = "%s: %s" % (type(e).__name__, str(e)[:500])
            result["ms"] = round((self._perf() - t0) * 1000, 1)
            emit(result)


class Helpers:
    """`jb` in checks.py: what the run drew and printed, and float comparison."""

    def __init__(self, harness):
        self._h = harness

    @staticmethod
    def approx(actual, expected, rel=1e-6, abs=1e-9):
        try:
            a, e = float(actual), float(expected)
        except (TypeError, ValueError):
            return False
        if math.isnan(a) or math.isnan(e):
            return math.isnan(a) and math.isnan(e)
        return math_abs(a - e) <= max(rel * max(math_abs(a), math_abs(e)), abs)

    def figures(self):
        """Every matplotlib figure the cells drew, in drawing order (closed ones included)."""
        self._h._post_execute()
        return [f for _, f in self._h.figures]

    def axes(self, title=None, xlabel=None, ylabel=None):
        """The axes of those figures; with `title` (any of left, centre, right), `xlabel` or `ylabel`, those that have it."""
        out = []
        for fig in self.figures():
            for ax in fig.axes:
                if title is not None and title not in (ax.get_title("left"), ax.get_title(), ax.get_title("right")):
                    continue
                if xlabel is not None and ax.get_xlabel() != xlabel:
                    continue
                if ylabel is not None and ax.get_ylabel() != ylabel:
                    continue
                out.append(ax)
        return out

    def printed(self):
        """Everything the cells printed on stdout, in order."""
        return "".join("".join(t) for _, t in self._h.printed)


math_abs = abs


# -- value summaries (snapshots) -------------------------------------------------

MAX_COLUMNS = 60


def _num(x):
    try:
        f = float(x)
    except Exception:  # noqa: BLE001
        return None
    return f if math.isfinite(f) else None


def _type_name(v):
    t = type(v)
    mod = getattr(t, "__module__", "") or ""
    return t.__qualname__ if mod == "builtins" else "%s.%s" % (mod, t.__qualname__)


def _stats(arr):
    """sum, mean, min, max of a numeric numpy array's finite values, and its missing (NaN) count."""
    import numpy as np

    a = np.asarray(arr)
    out = {}
    if a.dtype.kind in "biuf":
        flat = a.astype("float64", copy=False).ravel()
        nan = int(np.isnan(flat).sum()) if a.dtype.kind == "f" else 0
        fin = flat[np.isfinite(flat)]
        out["missing"] = nan
        out["infinite"] = int(flat.size - fin.size - nan)
        if fin.size:
            out.update(sum=_num(fin.sum()), mean=_num(fin.mean()), min=_num(fin.min()), max=_num(fin.max()))
    return out


def _describe(v):
    d = {"type": _type_name(v)}
    mod = type(v).__module__ or ""
    try:
        if mod.startswith("pandas"):
            _describe_pandas(v, d)
        elif mod.startswith("numpy") and hasattr(v, "shape") and hasattr(v, "dtype"):
            d["shape"] = [int(x) for x in v.shape]
            d["dtype"] = str(v.dtype)
            d.update(_stats(v))
        elif mod.startswith("torch"):
            _describe_torch(v, d)
        elif mod.startswith("sklearn") or (hasattr(v, "get_params") and hasattr(v, "fit")):
            fitted = sorted(k for k in vars(v) if k.endswith("_") and not k.startswith("_"))
            d["estimator"] = True
            d["fitted"] = fitted
            if hasattr(v, "n_features_in_"):
                d["nFeatures"] = int(v.n_features_in_)
        elif mod.startswith("statsmodels") and hasattr(v, "params"):
            d["params"] = [str(k) for k in list(getattr(v.params, "index", range(len(v.params))))[:MAX_COLUMNS]]
            if hasattr(v, "nobs"):
                d["nobs"] = _num(v.nobs)
        elif mod.startswith("matplotlib"):
            pass
        elif isinstance(v, bool):
            d["value"] = v
        elif isinstance(v, (int, float)):
            d["value"] = _num(v)
        elif isinstance(v, str):
            d["value"] = v[:200]
            d["length"] = len(v)
        elif isinstance(v, (list, tuple)):
            d["length"] = len(v)
            nums = [_num(x) for x in v[:100000]]
            if v and all(n is not None for n in nums) and not any(isinstance(x, (str, bytes)) for x in v[:100]):
                d["sum"] = _num(sum(nums))
                d["min"] = min(nums)
                d["max"] = max(nums)
        elif isinstance(v, dict):
            d["length"] = len(v)
            d["keys"] = [str(k) for k in list(v)[:MAX_COLUMNS]]
        elif hasattr(v, "__len__"):
            d["length"] = int(len(v))
    except Exception as e:  # noqa: BLE001
        d["error"] = type(e).__name__
    return d


def _describe_pandas(v, d):
    import pandas as pd

    if isinstance(v, pd.DataFrame):
        d["shape"] = [int(x) for x in v.shape]
        cols = list(v.columns)[:MAX_COLUMNS]
        d["columns"] = [str(c) for c in cols]
        d["dtypes"] = {str(c): str(v[c].dtype) if not isinstance(v[c], pd.DataFrame) else "frame" for c in cols}
        d["missing"] = {str(c): int(v[c].isna().sum().sum()) if isinstance(v[c], pd.DataFrame) else int(v[c].isna().sum()) for c in cols}
        d["stats"] = {str(c): _stats(v[c].to_numpy()) for c in cols if not isinstance(v[c], pd.DataFrame) and v[c].dtype.kind in "biuf"}
    elif isinstance(v, pd.Series):
        d["shape"] = [int(v.shape[0])]
        d["dtype"] = str(v.dtype)
        d["name"] = None if v.name is None else str(v.name)
        d["missing"] = int(v.isna().sum())
        if v.dtype.kind in "biuf":
            d.update({k: x for k, x in _stats(v.to_numpy()).items() if k != "missing"})
    elif hasattr(v, "__len__"):
        d["length"] = int(len(v))


def _describe_torch(v, d):
    import torch

    if isinstance(v, torch.Tensor):
        d["shape"] = [int(x) for x in v.shape]
        d["dtype"] = str(v.dtype)
        d.update(_stats(v.detach().cpu().double().numpy() if v.dtype.is_floating_point else v.detach().cpu().numpy()))
    elif isinstance(v, torch.nn.Module):
        params = [p for p in v.parameters()]
        d["module"] = True
        d["parameters"] = int(sum(p.numel() for p in params))
        d["training"] = bool(v.training)
        with torch.no_grad():
            d["weights"] = _num(sum(float(p.detach().double().abs().sum()) for p in params))
    elif hasattr(v, "__len__"):
        d["length"] = int(len(v))


def _describe_figure(fig):
    axes = []
    for ax in fig.axes:
        axes.append(
            {
                "title": ax.get_title(),
                "xlabel": ax.get_xlabel(),
                "ylabel": ax.get_ylabel(),
                "lines": [int(len(line.get_xdata())) for line in ax.lines],
                "patches": len(ax.patches),
                "collections": [int(len(c.get_offsets())) for c in ax.collections],
                "images": len(ax.images),
                "texts": len(ax.texts),
            }
        )
    return {"axes": axes, "suptitle": fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""}


def install(config):
    harness = Harness(config)
    module = types.ModuleType(MODULE)
    module.harness = harness
    sys.modules[MODULE] = module
    harness.install()
    return harness


install(globals()["CONFIG"])  # given by the probe's setup
