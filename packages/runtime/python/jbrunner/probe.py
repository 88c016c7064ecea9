"""`probe` and `fingerprint`: what the interpreter and its packages are."""

import hashlib
import importlib
import json
import os
import sys

from .protocol import python_info


def probe(modules, out=None):
    """Interpreter, kernel stack and the version of each module (None when it
    does not import) as one JSON line."""
    info = dict(python_info())
    packages = {}
    for mod in modules:
        try:
            m = importlib.import_module(mod)
            version = getattr(m, "__version__", None)
            if version is None:
                try:
                    from importlib.metadata import packages_distributions, version as dist_version

                    dists = packages_distributions().get(mod.split(".")[0]) or []
                    version = dist_version(dists[0]) if dists else "unknown"
                except Exception:  # noqa: BLE001
                    version = "unknown"
            packages[mod] = str(version)
        except BaseException:  # noqa: BLE001 - any import failure means "not available here"
            packages[mod] = None
    info["packages"] = packages
    info["runner"] = runner_hash()
    print(json.dumps(info, sort_keys=True), file=out or sys.stdout)


def fingerprint(out=None):
    """What the installed packages are, cheaply (no imports): changes when any
    package changes, or when the import path does (another PYTHONPATH can make
    other modules importable without any distribution changing)."""
    from importlib.metadata import distributions

    items = sorted({"%s==%s" % ((d.metadata.get("Name") or "?").lower(), d.version) for d in distributions()})
    digest = hashlib.sha256("\n".join(items).encode()).hexdigest()
    # sys.path[0] is this runner's own folder, the same for every interpreter state.
    paths = hashlib.sha256("\n".join(sys.path[1:]).encode()).hexdigest()
    line = {
        "executable": sys.executable,
        "version": sys.version.split()[0],
        "distributions": digest,
        "count": len(items),
        "paths": paths[:16],
    }
    print(json.dumps(line, sort_keys=True), file=out or sys.stdout)


def runner_hash(root=None):
    """sha256 over this runner's files, names included: the same value as
    hashRunnerFiles() on the toolchain's side (runner-path.ts), so the toolchain
    can refuse an image whose runner speaks another version of the protocol."""
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = ["junobench_runner.py"] + ["jbrunner/" + f for f in os.listdir(os.path.join(root, "jbrunner")) if f.endswith(".py")]
    lines = []
    for name in sorted(names):
        with open(os.path.join(root, name), "rb") as fh:
            lines.append("%s\0%s" % (name, hashlib.sha256(fh.read()).hexdigest()))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()
