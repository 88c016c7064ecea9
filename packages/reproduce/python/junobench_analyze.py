"""Static facts about a notebook's code cells, for reproducing a saved crash.

Reads a JSON file {"cells": [{"index": int, "source": str}]} and prints one
JSON object: per cell the names it binds and the names it uses unbound
(pyflakes, when installed), its imports, shell lines, URLs, the data files it
reads or writes, GPU use, and how it uses the tables it reads (columns, the
dtypes their operations imply, the values they mention, read options).

Nothing is executed: the cells are parsed with `ast` (IPython's transformer
turns magics and shell lines into calls first). The facts are hints for the
planning in packages/reproduce/src; see its README.
"""

import ast
import builtins
import json
import re
import sys

try:
    from pyflakes import checker as _pyflakes_checker
    from pyflakes import messages as _pyflakes_messages
except Exception:  # pragma: no cover - the fallback is coarser, not wrong
    _pyflakes_checker = None


def _load_transformer():
    """IPython's cell transformer (magics and shell lines to Python), loaded from its own file: the module needs only
    the standard library, while importing it through the package runs IPython's __init__, which imports the
    terminal, jedi and prompt_toolkit (about 0.3 s of the script's 0.4 s). The package import is the fallback for an
    IPython whose transformer needs more."""
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec("IPython")
        where = os.path.join(spec.submodule_search_locations[0], "core", "inputtransformer2.py")
        own = importlib.util.spec_from_file_location("_junobench_inputtransformer2", where)
        module = importlib.util.module_from_spec(own)
        own.loader.exec_module(module)
        return module.TransformerManager().transform_cell
    except Exception:
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell
    except Exception:  # pragma: no cover
        return None


_TRANSFORM = _load_transformer()

IPYTHON_NAMES = {"get_ipython", "display", "In", "Out", "exit", "quit", "_", "__", "___", "_i", "_ii", "_iii", "_oh", "_ih", "_dh"}
BUILTINS = set(dir(builtins)) | IPYTHON_NAMES

READERS_TABLE = {
    "read_csv": "csv", "read_table": "csv", "read_excel": "excel", "read_json": "json", "read_parquet": "parquet",
    "read_feather": "feather", "read_pickle": "pickle", "read_fwf": "csv", "read_hdf": "hdf", "read_stata": "stata",
    "read_sas": "sas", "read_spss": "spss", "read_orc": "orc", "read_xml": "xml", "read_html": "html",
}
READERS_OTHER = {
    "load": "array", "loadtxt": "array", "genfromtxt": "array", "fromfile": "array", "imread": "image",
    "open": "file", "urlopen": "url", "urlretrieve": "download", "get": "url", "listdir": "folder", "glob": "folder",
    "iglob": "folder", "scandir": "folder", "walk": "folder", "flow_from_directory": "folder", "ImageFolder": "folder",
    "image_dataset_from_directory": "folder", "load_img": "image", "loadmat": "array", "load_workbook": "excel",
    "load_model": "model", "load_state_dict": "model", "read_file": "file", "DatasetFolder": "folder",
    "text_dataset_from_directory": "folder", "get_file": "download", "wget": "download", "download": "download",
    "read_text": "file", "read_bytes": "file",
}
WRITERS = {"to_csv", "to_excel", "to_json", "to_parquet", "to_pickle", "savefig", "save", "savez", "savetxt", "imwrite", "dump", "to_feather", "makedirs", "mkdir", "save_model", "save_weights"}
# CUDA, and Apple's GPU (torch's 'mps' device).
GPU_RE = re.compile(r"\.cuda\(|['\"](?:cuda(?::\d+)?|mps)['\"]|device\s*=\s*['\"](?:cuda|mps)|list_physical_devices\(\s*['\"]GPU|gpu_device_name|tf\.test\.is_gpu_available|cupy|\.to\(\s*['\"](?:cuda|mps)")
URL_RE = re.compile(r"(?:https?|ftp)://[^\s'\"<>()\[\]{}]+")
PATH_EXT_RE = re.compile(r"\.(csv|tsv|txt|json|xlsx?|parquet|feather|npy|npz|pkl|pickle|h5|hdf5|jpe?g|png|gif|bmp|tiff?|zip|gz|tar|mat|data|dat|arff|xml|sav|dta|wav|mp3|pt|pth|model|css|html?|ya?ml|cfg|ini|sql|names)$", re.I)
COLUMN_KEYWORDS = {"columns", "subset", "by", "on", "left_on", "right_on", "x", "y", "hue", "index", "values", "id_vars", "value_vars", "column", "col", "row", "size", "style", "usecols", "parse_dates", "index_col", "names", "stratify_col", "target"}
# Module functions (pandas) whose first argument is the frame their column keywords name columns of.
FRAME_FIRST_FUNCS = {"get_dummies", "melt", "pivot_table", "pivot", "wide_to_long"}
POSITIONAL_COLUMN_METHODS = {"groupby", "sort_values", "set_index", "pivot_table", "pivot", "nlargest", "nsmallest", "explode", "melt", "value_counts", "boxplot", "hist"}
NUMERIC_METHODS = {"mean", "sum", "std", "var", "median", "min", "max", "quantile", "cumsum", "round", "clip", "diff", "pct_change", "corr", "cov", "skew", "kurt", "abs", "prod", "idxmax", "idxmin", "rolling", "ewm", "interpolate", "between"}
CATEGORY_METHODS = {"value_counts", "unique", "nunique", "mode", "factorize", "cat"}
NUMERIC_FUNCS = {"log", "log1p", "sqrt", "exp", "mean", "std", "abs", "square", "power", "histplot", "hist", "distplot", "kdeplot", "boxplot", "scatter", "to_numeric", "corrcoef", "round", "floor", "ceil", "cbrt", "boxcox", "zscore"}
CATEGORY_FUNCS = {"get_dummies", "countplot", "fit_transform", "LabelEncoder", "crosstab", "Categorical", "factorize", "barplot", "catplot"}
DATE_LITERAL_RE = re.compile(r"^\d{4}(?:-\d{1,2}(?:-\d{1,2})?)?(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
ENCODER_RE = re.compile(r"Encoder|Binarizer|Vectorizer|Tokenizer|Hasher", re.I)
IMPUTER_RE = re.compile(r"Imputer", re.I)
CLASSIFIER_RE = re.compile(r"Classifier|Logistic|SVC|NaiveBayes|NB$|KNeighborsClassifier|Perceptron", re.I)

# The public attributes of pandas' DataFrame and Series: `df.mean` is a method, `df.price` a column. Listed here, not
# read from an imported pandas: the import took 0.35 s of every run of this script, and the facts no longer depend on
# which pandas is installed. The list is pandas 1.5.3's (Debian bookworm's), with what pandas 2.2 added (`case_when`,
# the `list` and `struct` accessors); older versions' API follows below. A name starting with `_` is never
# taken for a column either (frame_attr).
FRAME_ATTRS = set(
    """
T abs add add_prefix add_suffix agg aggregate align all any append apply applymap argmax argmin argsort array
asfreq asof assign astype at at_time attrs autocorr axes backfill between between_time bfill bool boxplot cat
clip columns combine combine_first compare convert_dtypes copy corr corrwith count cov cummax cummin cumprod
cumsum describe diff div divide divmod dot drop drop_duplicates droplevel dropna dt dtype dtypes duplicated
empty eq equals eval ewm expanding explode factorize ffill fillna filter first first_valid_index flags floordiv
from_dict from_records ge get groupby gt hasnans head hist iat idxmax idxmin iloc index infer_objects info
insert interpolate is_monotonic is_monotonic_decreasing is_monotonic_increasing is_unique isetitem isin isna
isnull item items iteritems iterrows itertuples join keys kurt kurtosis last last_valid_index le loc lookup lt
mad map mask max mean median melt memory_usage merge min mod mode mul multiply name nbytes ndim ne nlargest
notna notnull nsmallest nunique pad pct_change pipe pivot pivot_table plot pop pow prod product quantile query
radd rank ravel rdiv rdivmod reindex reindex_like rename rename_axis reorder_levels repeat replace resample
reset_index rfloordiv rmod rmul rolling round rpow rsub rtruediv sample searchsorted select_dtypes sem set_axis
set_flags set_index shape shift size skew slice_shift sort_index sort_values sparse squeeze stack std str style
sub subtract sum swapaxes swaplevel tail take to_clipboard to_csv to_dict to_excel to_feather to_frame to_gbq
to_hdf to_html to_json to_latex to_list to_markdown to_numpy to_orc to_parquet to_period to_pickle to_records
to_sql to_stata to_string to_timestamp to_xarray to_xml tolist transform transpose truediv truncate tshift
tz_convert tz_localize unique unstack update value_counts values var view where xs
case_when list struct
""".split()
)
# DataFrame and Series API of older pandas versions (removed since): a notebook's `df.ix[...]` is not a column.
FRAME_ATTRS = FRAME_ATTRS | {
    "ix", "as_matrix", "get_value", "set_value", "sortlevel", "sort", "convert_objects", "consolidate", "irow", "icol",
    "get_dtype_counts", "ftypes", "to_panel", "select", "reindex_axis", "from_csv", "append", "iteritems", "swapaxes",
    "lookup", "tshift", "mad", "bool", "is_copy", "get_ftype_counts", "as_blocks", "blocks", "clip_lower", "clip_upper",
}


def frame_attr(name):
    """Whether `frame.<name>` is pandas' own attribute rather than a column: a listed one, or a private one."""
    return name in FRAME_ATTRS or name.startswith("_")


def transform(source):
    if _TRANSFORM is not None:
        try:
            return _TRANSFORM(source)
        except Exception:
            pass
    # Without IPython: drop magics and shell lines, which are not Python.
    return "\n".join("" if l.lstrip().startswith(("!", "%", "?")) else l for l in source.split("\n"))


def shell_lines(source):
    out = []
    in_cell_magic = None
    for i, line in enumerate(source.split("\n")):
        s = line.strip()
        if i == 0 and s.startswith("%%"):
            in_cell_magic = s[2:].split()[0] if len(s) > 2 else ""
            if in_cell_magic in ("bash", "sh", "script", "capture"):
                continue
        if in_cell_magic in ("bash", "sh"):
            if s:
                out.append({"line": i + 1, "command": s})
            continue
        m = re.match(r"^!\s*(.+)$", s) or re.match(r"^%(?:pip|conda|sx|system)\s+(.+)$", s)
        if m:
            cmd = m.group(1)
            if s.startswith("%pip"):
                cmd = "pip " + cmd
            elif s.startswith("%conda"):
                cmd = "conda " + cmd
            out.append({"line": i + 1, "command": cmd})
        else:
            m = re.match(r"^[A-Za-z_]\w*\s*=\s*!\s*(.+)$", s)
            if m:
                out.append({"line": i + 1, "command": m.group(1)})
    return out


def call_name(node):
    f = node.func if isinstance(node, ast.Call) else node
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = dotted(node.func)
        return (inner + "()." if inner else "") + ".".join(reversed(parts))
    return None


def root_name(node):
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            break
    return node.id if isinstance(node, ast.Name) else None


class Constants:
    """Module-level string constants (PATH = '../input/'), folded into paths as the cells run."""

    def __init__(self):
        self.values = {}

    def eval(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.values.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.eval(node.left), self.eval(node.right)
            return a + b if a is not None and b is not None else None
        if isinstance(node, ast.JoinedStr):
            out = ""
            for v in node.values:
                if isinstance(v, ast.Constant):
                    out += str(v.value)
                elif isinstance(v, ast.FormattedValue):
                    s = self.eval(v.value)
                    if s is None:
                        return None
                    out += s
            return out
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name.endswith("path.join") or name.endswith("joinpath") or name in ("Path", "pathlib.Path", "PurePath"):
                parts = [self.eval(a) for a in node.args]
                if parts and all(p is not None for p in parts):
                    out = parts[0]
                    for p in parts[1:]:
                        out = p if p.startswith("/") else (out.rstrip("/") + "/" + p if out else p)
                    return out
            if isinstance(node.func, ast.Attribute) and node.func.attr == "format":
                base = self.eval(node.func.value)
                args = [self.eval(a) for a in node.args]
                if base is not None and all(a is not None for a in args):
                    try:
                        return base.format(*args)
                    except Exception:
                        return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            # pathlib: Path(base) / 'file.csv'
            a, b = self.eval(node.left), self.eval(node.right)
            if a is not None and b is not None:
                return a.rstrip("/") + "/" + b
        return None

    def learn(self, tree):
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                v = self.eval(stmt.value)
                if v is not None:
                    self.values[name] = v
                else:
                    self.values.pop(name, None)
                # `cols = ['a', 'b']` then `df[cols]`: a list of column names kept by name.
                if isinstance(stmt.value, (ast.List, ast.Tuple)) and stmt.value.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in stmt.value.elts
                ):
                    LIST_CONSTANTS[name] = [e.value for e in stmt.value.elts]
                else:
                    LIST_CONSTANTS.pop(name, None)
                # `d = {'apple': 0, ...}` then `df['Fruit'].map(d)`: the values the column holds are its keys.
                if isinstance(stmt.value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
                    VALUE_CONSTANTS[name] = const_values(stmt.value)
                else:
                    VALUE_CONSTANTS.pop(name, None)


def int_of(node):
    """An integer constant, negative ones included; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = int_of(node.operand)
        return -v if v is not None else None
    return None


# Module-level lists of strings by name (`cols = ['a', 'b']`), as the cells define them in turn (see Constants.learn).
LIST_CONSTANTS = {}
# Names holding a text file's contents, or words split from it, by the file's path (a header list kept in its own file).
TEXT_SOURCES = {}
TEXT_METHODS = {"read", "readlines", "split", "splitlines", "strip", "rstrip", "lstrip", "lower", "upper", "replace", "decode"}
# Module-level literal values by name: a dict's keys, a list's items (what `.map(d)` or `.isin(v)` mentions).
VALUE_CONSTANTS = {}


def str_list(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in LIST_CONSTANTS:
        return list(LIST_CONSTANTS[node.id])
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
        return out
    return []


def const_values(node):
    """Literal values a filter, map, replace or isin mentions."""
    if isinstance(node, ast.Name) and node.id in VALUE_CONSTANTS:
        return list(VALUE_CONSTANTS[node.id])
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)) and node.value is not None:
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [v for e in node.elts for v in const_values(e)]
    if isinstance(node, ast.Dict):
        return [v for k in node.keys if k is not None for v in const_values(k)]
    return []


class Tables:
    """What the code does with the tables it reads, by read."""

    def __init__(self):
        self.links = {}  # variable -> set of read ids
        self.reads = {}  # read id -> usage
        self.renamed = {}  # read id -> columns assigned with `df.columns = [...]`
        self.direct = {}  # variable -> read id, for a variable that holds the frame a read returned (not one made from it)
        self.dummies = set()  # variables holding one-hot columns of one column (pd.get_dummies(df.col)), or frames made with them
        self.via = "plain"
        self.changed = set()  # read ids whose frame the code changed in place (what it shows after is not the file)
        self.subset = set()  # variables of `direct` holding some of the read's rows (dropna, a mask): its columns, not its size
        self.shown_in = {}  # (cell, output type) -> displays counted so far, to pair them with the saved outputs
        self.merged = {}  # variable -> (its reads, the left frame's first; the merge's `on` keys), for a merge's result

    def read_with(self, rids, name):
        """Of the reads a variable holds (a merge holds both), the one a column most likely comes from: the first that
        the code already named it on, else the first. Chosen by position, never by a set's order, which changes with
        the hash seed from run to run: the facts, and the drafts made from them, are the same every time."""
        ordered = sorted(rids, key=lambda rid: [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in rid.split(":")])
        named = [rid for rid in ordered if name in self.reads.get(rid, {}).get("columns", {})]
        return (named or ordered or [None])[0]

    def merged_read(self, var, name):
        """The one read a column named on a merge's result comes from, or None to give it to every read the variable
        holds. A column both frames had would be suffixed by the merge (`x_x`, `x_y`): only the `on` keys are in
        both. The read is the first (left frame first) that the code already named it on, else the left one."""
        m = self.merged.get(var)
        if m is None or name in m[1]:
            return None
        rids, _ = m
        return next((rid for rid in rids if name in self.reads.get(rid, {}).get("columns", {})), rids[0])

    def usage(self, rid):
        return self.reads.setdefault(rid, {"columns": {}, "minRows": 0, "columnCount": 0})

    def column(self, rid, name, cell):
        u = self.usage(rid)
        cols = u["columns"]
        c = cols.get(name)
        if c is None:
            c = cols[name] = {"hints": [], "values": [], "cells": []}
            # The order the code first names them in: the output sorts keys, and a derived file keeps this order.
            u.setdefault("order", []).append(name)
        if cell not in c["cells"]:
            c["cells"].append(cell)
        # Named on a frame that holds one-hot columns of another (pd.get_dummies of one column), or on a plain one.
        via = c.setdefault("via", [])
        if self.via not in via:
            via.append(self.via)
        return c


def expr_kind(node):
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return "bool"
        if isinstance(node.value, (int, float)):
            return "number"
        if isinstance(node.value, str):
            return "string"
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return expr_kind(node.operand)
    return None


def groupby_columns(node, groupers):
    """The columns a grouped value is keyed by: a `.groupby(...)` in its chain, or a variable holding one."""
    while True:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "groupby":
                by = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "by"), None)
                return str_list(by) if by is not None else []
            node = node.func
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Name):
            return groupers.get(node.id, [])
        else:
            return []


def merge_sides(node):
    """(left frame, right frame, keywords) of `pd.merge(left, right, …)` or `left.merge(right, …)`; else None."""
    if not isinstance(node, ast.Call) or call_name(node) != "merge":
        return None
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    if len(node.args) >= 2 or "left" in kw:
        left = node.args[0] if node.args else kw.get("left")
        right = node.args[1] if len(node.args) > 1 else kw.get("right")
    else:
        left = node.func.value if isinstance(node.func, ast.Attribute) else None
        right = node.args[0] if node.args else kw.get("right")
    return left, right, kw


class CellAnalyzer(ast.NodeVisitor):
    def __init__(self, index, consts, tables, facts):
        self.index = index
        self.consts = consts
        self.tables = tables
        self.facts = facts
        self.parents = {}

    def run(self, tree):
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        last = tree.body[-1] if tree.body else None
        for stmt in tree.body:
            self.visit_statement(stmt)
            self.note_displays(stmt, stmt is last)
            one = ast.Module(body=[stmt], type_ignores=[])
            self.consts.learn(one)
            learn_series_and_models(one, self.tables, self.facts)

    # --- what the saved outputs show of a read's frame ---------------------
    def note_displays(self, stmt, last):
        """Saved outputs that show a read's own frame before the code changed it: the cell's last expression
        (Jupyter shows its value), `display(x)` calls and `x.info()` (printed). Recorded per read as
        {cell, kind, output, nth, column?}; the planner parses those outputs (saved-frames.ts)."""
        shown = []
        if isinstance(stmt, ast.Expr):
            value = stmt.value
            if last:
                shown.append((value, "result"))
            if isinstance(value, ast.Call) and call_name(value) == "display" and value.args and isinstance(value.func, ast.Name):
                shown.extend((a, "display") for a in value.args)
            for node in ast.walk(value):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "info":
                    shown.append((node, "stream"))
            # print(df.shape), print(df.columns): printed text of the cell, read by kind.
            if isinstance(value, ast.Call) and call_name(value) == "print" and isinstance(value.func, ast.Name) and len(value.args) == 1:
                if display_kind(value.args[0])[0] in ("shape", "columns", "frame", "rows", "describe"):
                    shown.append((value.args[0], "stream"))
        for node, output in shown:
            kind, column, receiver = display_kind(node)
            if kind is None or output == "stream" and kind not in ("info", "shape", "columns", "frame", "rows", "describe") or output != "stream" and kind == "info":
                continue
            rid = self.tables.direct.get(receiver)
            if rid is None or rid in self.tables.changed:
                continue
            # Some of the file's rows (dropna, a mask): the file's columns, kinds and values, not its size or gaps.
            if receiver in self.tables.subset and kind in ("shape", "missing"):
                continue
            # Printed text is read by kind (info() blocks, shape lines); results and displays in order.
            counter = (self.index, output, kind if output == "stream" else "")
            nth = self.tables.shown_in.get(counter, 0)
            self.tables.shown_in[counter] = nth + 1
            entry = {"cell": self.index, "kind": kind, "output": output, "nth": nth}
            if column is not None:
                entry["column"] = column
            if kind == "columns" and isinstance(node, ast.Attribute) and selected_kind(node.value) is not None:
                entry["select"] = selected_kind(node.value)
            if receiver in self.tables.subset:
                entry["subset"] = True
            self.tables.usage(rid).setdefault("displays", []).append(entry)
        # After the code changes a frame in place, what it shows is no longer the file.
        for name in changed_in_place(stmt):
            rid = self.tables.direct.get(name)
            if rid is not None:
                self.tables.changed.add(rid)
        for name in rows_dropped_in_place(stmt):
            if name in self.tables.direct:
                self.tables.subset.add(name)

    # --- tables -----------------------------------------------------------
    def table_reads_of(self, node):
        r = root_name(node)
        return self.tables.links.get(r, set()) if r else set()

    def reads_for(self, recv, reads, name):
        """The reads a column named on `recv` goes to: one of a merge's (Tables.merged_read), else all of them."""
        one = self.tables.merged_read(recv.id, name) if isinstance(recv, ast.Name) else None
        return [one] if one is not None else reads

    def visit_statement(self, stmt):
        self.learn_text_sources(stmt)
        # `for d in [train, test]:` makes d each of them in the body.
        for node in ast.walk(stmt):
            if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
                if isinstance(node.iter, (ast.List, ast.Tuple)):
                    linked = set()
                    for e in node.iter.elts:
                        if isinstance(e, ast.Name):
                            linked |= self.tables.links.get(e.id, set())
                    if linked:
                        self.tables.links[node.target.id] = linked
        # Reads and links first (an assignment binds after its value is computed).
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                self.set_via(node.func.value if isinstance(node.func, ast.Attribute) else None)
                self.visit_call(node)
            elif isinstance(node, ast.Subscript):
                self.set_via(node.value)
                self.visit_subscript(node)
            elif isinstance(node, ast.Attribute):
                self.set_via(node.value)
                self.visit_attribute(node)
        self.tables.via = "plain"
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.visit_assign(stmt)
            self.learn_dummies(stmt)

    def set_via(self, receiver):
        r = root_name(receiver) if receiver is not None else None
        self.tables.via = "dummies" if r in self.tables.dummies else "plain"

    def learn_dummies(self, stmt):
        """`d = pd.get_dummies(df.town)`: d's columns are town's values; so are those of frames made with d."""
        if not isinstance(stmt, ast.Assign):
            return
        value = stmt.value
        one_hot = any(
            isinstance(n, ast.Call) and call_name(n) == "get_dummies" and n.args
            and isinstance(n.args[0], (ast.Attribute, ast.Subscript)) and self.table_reads_of(n.args[0])
            and not any(k.arg == "columns" for k in n.keywords)
            for n in ast.walk(value)
        )
        uses = any(isinstance(n, ast.Name) and n.id in self.tables.dummies for n in ast.walk(value))
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                if one_hot or uses:
                    self.tables.dummies.add(t.id)
                else:
                    self.tables.dummies.discard(t.id)

    def learn_text_sources(self, stmt):
        """Names that hold a text file's contents (`with open(p) as f: names = f.read().split()`)."""
        for node in ast.walk(stmt):
            if isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    c = item.context_expr
                    if isinstance(item.optional_vars, ast.Name) and isinstance(c, ast.Call) and call_name(c) == "open" and c.args:
                        p = self.consts.eval(c.args[0])
                        if p is not None:
                            TEXT_SOURCES[item.optional_vars.id] = p
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                src = self.text_source(node.value)
                if src is not None:
                    TEXT_SOURCES[node.targets[0].id] = src
                else:
                    TEXT_SOURCES.pop(node.targets[0].id, None)

    def text_source(self, value):
        while True:
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in TEXT_METHODS:
                value = value.func.value
            elif isinstance(value, ast.Subscript):
                value = value.value
            else:
                break
        if isinstance(value, ast.Name):
            return TEXT_SOURCES.get(value.id)
        if isinstance(value, ast.Call) and call_name(value) == "open" and value.args:
            return self.consts.eval(value.args[0])
        return None

    def visit_assign(self, stmt):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        if value is None:
            return
        reads = self.reads_of_value(value)
        for t in targets:
            # df.columns = [...]: the header is renamed; its width is what counts.
            if isinstance(t, ast.Attribute) and t.attr == "columns" and isinstance(t.value, ast.Name):
                names = str_list(value)
                # Only the read's own frame: a summary frame made from it (`counts.columns = [...]`) says nothing of the file.
                rid = self.tables.direct.get(t.value.id)
                if names and rid is not None and rid not in self.tables.renamed:
                    self.tables.renamed[rid] = names
                continue
            # df['new'] = ...: a column the code makes, not one the file must have.
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                key = t.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    for rid in self.tables.links.get(t.value.id, set()):
                        made = self.tables.usage(rid).setdefault("made", [])
                        if key.value not in made and key.value not in self.tables.usage(rid)["columns"]:
                            made.append(key.value)
                continue
            if isinstance(t, ast.Name):
                rid, subset = self.direct_view(value)
                if rid is not None:
                    self.tables.direct[t.id] = rid
                else:
                    self.tables.direct.pop(t.id, None)
                if rid is not None and subset:
                    self.tables.subset.add(t.id)
                else:
                    self.tables.subset.discard(t.id)
            names = [t] if isinstance(t, ast.Name) else [e for e in getattr(t, "elts", []) if isinstance(e, ast.Name)]
            vals = getattr(value, "elts", None) if isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple) else None
            for i, n in enumerate(names):
                v = vals[i] if vals is not None and i < len(vals) else value
                r = self.reads_of_value(vals[i]) if vals is not None and i < len(vals) else reads
                # A model, a fit or a test result made from the frame is not a frame: its attributes are not columns.
                if r and makes_result_object(v):
                    r = set()
                if r:
                    self.tables.links[n.id] = set(r)
                elif isinstance(stmt, ast.Assign):
                    self.tables.links.pop(n.id, None)
                # A merge's result, or a frame made from one and nothing else (`train = train.fillna(0)`,
                # `X = train.drop(...)`): its columns come from one read each (Tables.merged_read).
                sides = merge_sides(v)
                carried = None
                if sides is None:
                    froms = {x.id for x in ast.walk(v) if isinstance(x, ast.Name) and x.id in self.tables.merged}
                    merges = {tuple(self.tables.merged[x][0]): self.tables.merged[x] for x in froms}
                    if len(merges) == 1 and set(r) == set(next(iter(merges))):
                        carried = next(iter(merges.values()))
                self.tables.merged.pop(n.id, None)
                if sides is not None:
                    order = lambda x: sorted(self.table_reads_of(x) if x is not None else (), key=str)  # noqa: E731
                    rids = list(dict.fromkeys(order(sides[0]) + order(sides[1])))
                    if len(rids) > 1:
                        self.tables.merged[n.id] = (rids, set(str_list(sides[2].get("on"))))
                elif carried is not None:
                    self.tables.merged[n.id] = carried

    def direct_read(self, value):
        """The read whose frame `value` is itself: the read call, a copy of it, or a variable holding it."""
        return self.direct_view(value)[0]

    def direct_view(self, value):
        """(the read whose columns `value` has as the file has them, or None; whether it holds only some of the
        file's rows): the read call, a copy of it, a variable holding it, or any of those with rows dropped,
        sorted or masked (`df.dropna()`, `df[df.x > 0]`, `df.iloc[:100]`)."""
        subset = False
        while id(value) not in self.facts["_read_ids"]:
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("copy", "reset_index"):
                value = value.func.value
            elif isinstance(value, ast.Call) and drops_rows(value):
                value, subset = value.func.value, True
            elif isinstance(value, ast.Subscript) and row_mask(value):
                value = value.value
                if isinstance(value, ast.Attribute) and value.attr in ("loc", "iloc"):
                    value = value.value
                subset = True
            else:
                break
        if isinstance(value, ast.Call) and id(value) in self.facts["_read_ids"]:
            return self.facts["_read_ids"][id(value)], subset
        if isinstance(value, ast.Name):
            rid = self.tables.direct.get(value.id)
            return rid, rid is not None and (subset or value.id in self.tables.subset)
        return None, False

    def reads_of_value(self, value):
        out = set()
        for node in ast.walk(value):
            if isinstance(node, ast.Call) and id(node) in self.facts["_read_ids"]:
                out.add(self.facts["_read_ids"][id(node)])
            elif isinstance(node, ast.Name) and node.id in self.tables.links:
                out |= self.tables.links[node.id]
        return out

    def group_values(self, base, key_node):
        """`grouped.loc['x']`, `grouped.get_group('x')`: the grouping columns hold 'x'."""
        cols = groupby_columns(base, self.facts["_groupers"])
        vals = str_list(key_node)
        if not cols or not vals:
            return
        for rid in self.table_reads_of(base):
            for col in cols[:1]:
                c = self.tables.column(rid, col, self.index)
                if "category" not in c["hints"]:
                    c["hints"].append("category")
                for v in vals:
                    if v not in c["values"]:
                        c["values"].append(v)

    def visit_subscript(self, node):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "loc":
            key = node.slice
            self.group_values(node.value.value, key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key)
        reads = self.table_reads_of(node.value) if isinstance(node.value, ast.Name) else set()
        if not reads:
            # df.loc[rows, 'col'] / df.loc[:, ['a', 'b']]
            if isinstance(node.value, ast.Attribute) and node.value.attr in ("loc", "at") and isinstance(node.value.value, ast.Name):
                reads = self.table_reads_of(node.value.value)
                key = node.slice
                # df.loc['label'] / df.loc[['a', 'b'], ...]: labels the index must hold.
                first = key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key
                for rid in reads:
                    u = self.tables.usage(rid)
                    for v in str_list(first):
                        if v not in u.setdefault("indexValues", []):
                            u["indexValues"].append(v)
                if reads and isinstance(key, ast.Tuple) and len(key.elts) == 2:
                    for name in str_list(key.elts[1]):
                        for rid in reads:
                            self.hint_column(rid, name, node)
            elif isinstance(node.value, ast.Attribute) and node.value.attr in ("iloc", "iat") and isinstance(node.value.value, ast.Name):
                reads = self.table_reads_of(node.value.value)
                key = node.slice
                cols = key.elts[1] if isinstance(key, ast.Tuple) and len(key.elts) == 2 else None
                need = 0
                if isinstance(cols, ast.Constant) and isinstance(cols.value, int):
                    need = cols.value + 1 if cols.value >= 0 else -cols.value
                elif isinstance(cols, ast.Slice):
                    # [:, :k] needs k columns; [:, :-k] keeps some only with more than k; [:, k:] and [:, -k:] likewise.
                    up, lo = int_of(cols.upper), int_of(cols.lower)
                    if up is not None:
                        need = max(need, up if up > 0 else 1 - up)
                    if lo is not None:
                        need = max(need, lo + 1 if lo >= 0 else -lo)
                for rid in reads:
                    u = self.tables.usage(rid)
                    u["columnCount"] = max(u["columnCount"], need)
            return
        key = node.slice
        names = str_list(key)
        if isinstance(node.ctx, ast.Store):
            return
        for name in names:
            one = self.tables.merged_read(node.value.id, name)
            for rid in [one] if one is not None else reads:
                self.hint_column(rid, name, node)
            # df[df['c'] == 'x']: handled through the inner subscript's Compare parent.

    def visit_attribute(self, node):
        if not isinstance(node.value, ast.Name) or not isinstance(node.ctx, ast.Load):
            return
        reads = self.table_reads_of(node.value)
        if not reads or frame_attr(node.attr):
            return
        parent = self.parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return
        one = self.tables.merged_read(node.value.id, node.attr)
        for rid in [one] if one is not None else reads:
            self.hint_column(rid, node.attr, node)

    def hint_column(self, rid, name, node):
        c = self.tables.column(rid, name, self.index)
        parent = self.parents.get(node)
        grand = self.parents.get(parent) if parent is not None else None
        hints, values = c["hints"], c["values"]

        def add(h):
            if h not in hints:
                hints.append(h)
            # The cell that first implied it: a value the crash quotes may sit in a column converted only by the crash.
            c.setdefault("hintCells", {}).setdefault(h, self.index)

        if isinstance(parent, ast.Attribute):
            a = parent.attr
            call = grand if isinstance(grand, ast.Call) and grand.func is parent else None
            if a == "str":
                add("text")
            elif a == "dt":
                add("date")
            elif a in NUMERIC_METHODS:
                add("number")
            elif a in CATEGORY_METHODS:
                add("category")
            elif a == "fillna" or a == "isnull" or a == "isna" or a == "dropna":
                add("missing")
            elif a == "astype" and call is not None and call.args:
                t = call.args[0]
                tname = t.value if isinstance(t, ast.Constant) else (dotted(t) or "")
                tname = str(tname)
                if re.search(r"int", tname):
                    add("int")
                elif re.search(r"float", tname):
                    add("number")
                elif re.search(r"str|object", tname):
                    add("text")
                elif re.search(r"categ", tname):
                    add("category")
                elif re.search(r"bool", tname):
                    add("bool")
                elif re.search(r"date", tname):
                    add("date")
            elif a in ("map", "replace", "isin") and call is not None and call.args:
                add("category")
                for v in const_values(call.args[0]):
                    if v not in values:
                        values.append(v)
        elif isinstance(parent, ast.Compare):
            for other in [parent.left] + parent.comparators:
                if other is node:
                    continue
                k = expr_kind(other)
                if k == "number":
                    add("number")
                elif k == "string":
                    add("category")
                    v = other.value
                    if v not in values:
                        values.append(v)
                elif k == "bool":
                    add("bool")
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod)):
            add("number")
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add):
            other = parent.right if parent.left is node else parent.left
            add("text" if expr_kind(other) == "string" else "number")
        elif isinstance(parent, ast.Call) and node in parent.args:
            fname = call_name(parent) or ""
            recv = parent.func.value if isinstance(parent.func, ast.Attribute) else None
            model = self.facts["_models"].get(recv.id, "") if isinstance(recv, ast.Name) else ""
            if fname in ("fit", "fit_transform", "transform", "fit_predict") and model:
                # What the estimator takes: an encoder categories, a scaler or a model numbers, an imputer gaps.
                if ENCODER_RE.search(model):
                    add("category")
                else:
                    add("number")
                    if IMPUTER_RE.search(model):
                        add("missing")
            elif fname == "to_datetime":
                add("date")
            elif fname in NUMERIC_FUNCS:
                add("number")
            elif fname in CATEGORY_FUNCS:
                add("category")
                # One column one-hot encoded: its values become column names, which pandas and sklearn want as text.
                if fname == "get_dummies" and parent.args and parent.args[0] is node:
                    add("dummies")
        elif isinstance(parent, ast.keyword) and parent.arg in ("stratify",):
            add("category")

    def visit_call(self, node):
        fname = call_name(node) or ""
        full = dotted(node.func) or fname
        line = getattr(node, "lineno", 0)
        # Files and URLs a call reads.
        kind = READERS_TABLE.get(fname)
        if kind is None and fname in READERS_OTHER:
            kind = READERS_OTHER[fname]
            if fname == "open":
                mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
                m = mode.value if isinstance(mode, ast.Constant) else "r"
                if isinstance(m, str) and re.search(r"[wax]", m):
                    self.note_write(node)
                    return
            if fname == "get" and not re.search(r"requests|session|http", full, re.I):
                kind = None
            if fname == "load" and not re.search(r"^(np|numpy|torch|joblib|pickle|json|yaml)\.", full):
                kind = None if not re.search(r"^(np|numpy)", full) else kind
            if fname in ("load", "loadtxt", "genfromtxt") and re.search(r"^(torch|joblib|pickle)", full):
                kind = "model"
        if fname in WRITERS:
            self.note_write(node)
        # sns.load_dataset('tips'): a CSV that seaborn downloads (and then reads from its cache folder, data_home).
        fetched = None
        if fname == "load_dataset" and re.match(r"^(?:sns|seaborn)\.", full) and node.args and not any(k.arg in ("data_home", "cache") for k in node.keywords):
            name = self.consts.eval(node.args[0])
            if isinstance(name, str) and re.fullmatch(r"[\w.\-]+", name):
                kind, fetched = "csv", DATASET_FETCHERS["load_dataset"][1].format(name)
        # torchvision.datasets.MNIST(root, download=True): a folder it fills with IDX files, then reads.
        if kind is None and fname in IDX_DATASETS:
            kind = "idx-dataset"
        if kind is not None:
            recv_path = self.consts.eval(node.func.value) if isinstance(node.func, ast.Attribute) else None
            target = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("filepath_or_buffer", "path", "fname", "file", "filename", "io", "url", "directory", "root", "pathname", "path_or_buf", "top")), None)
            path = self.consts.eval(target) if target is not None else None
            if fetched is not None:
                path = fetched
            # pathlib: base.glob("*/*.jpg") lists under base; base.open() / Image.open(base) read base itself.
            if fname in ("glob", "rglob", "iglob") and recv_path is not None and not recv_path.endswith(("glob", "os.path")):
                path = recv_path.rstrip("/") + "/" + (path or "*")
            elif fname in ("glob", "rglob") and isinstance(node.func, ast.Attribute) and recv_path is None and not re.match(r"^(?:glob|os\.path)$", dotted(node.func.value) or ""):
                # A folder's own glob (Path(folder).glob("*/*.jpg")) under a folder the code passes in: the pattern
                # is relative to that folder, not a path of its own, and is read (and rewritten) as part of no path.
                path = None
            elif fname in ("open", "read_text", "read_bytes") and not node.args and recv_path is not None:
                path = recv_path
            if fname == "urlretrieve" and path is not None:
                dest = node.args[1] if len(node.args) > 1 else None
                d = self.consts.eval(dest) if dest is not None else None
                if d is not None:
                    self.facts["writes"].append(d)
            if fname == "get_file" and len(node.args) > 1:
                url = self.consts.eval(node.args[1])
                if url is not None:
                    path = url
            if path is not None:
                rid = "%d:%d:%d" % (self.index, line, getattr(node, "col_offset", 0))
                entry = {"id": rid, "path": path, "call": full, "kind": kind, "line": line}
                if fetched is not None:
                    entry["fetcher"] = "seaborn.load_dataset"
                if kind == "idx-dataset":
                    entry["dataset"] = fname
                opts = {}
                for k in node.keywords:
                    if k.arg in ("sep", "delimiter", "header", "index_col", "names", "usecols", "parse_dates", "skiprows", "encoding", "sheet_name", "dtype", "nrows", "na_values", "decimal", "thousands", "compression", "lines", "orient", "delim_whitespace"):
                        try:
                            opts[k.arg] = ast.literal_eval(k.value)
                        except Exception:
                            opts[k.arg] = "?"
                if len(node.args) > 1 and fname in ("read_csv", "read_table") and isinstance(node.args[1], ast.Constant):
                    opts["sep"] = node.args[1].value
                names_kw = next((k.value for k in node.keywords if k.arg == "names"), None)
                if isinstance(names_kw, ast.Name) and names_kw.id in TEXT_SOURCES:
                    opts["namesFrom"] = TEXT_SOURCES[names_kw.id]
                if opts:
                    entry["options"] = opts
                self.facts["reads"].append(entry)
                self.facts["_read_ids"][id(node)] = rid
                if kind in ("csv", "excel", "json", "parquet", "feather", "pickle") and "read_" in fname:
                    u = self.tables.usage(rid)
                    for col in str_list(opts.get("names")) if isinstance(opts.get("names"), list) else []:
                        pass
        # df.insert(i, 'new', …) and df.assign(new=…): columns the code makes, not ones the file must have.
        if fname in ("insert", "assign") and isinstance(node.func, ast.Attribute):
            made_names = [node.args[1].value] if fname == "insert" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) else []
            if fname == "assign":
                made_names = [k.arg for k in node.keywords if k.arg]
            at = int_of(node.args[0]) if fname == "insert" and node.args else None
            for rid in self.table_reads_of(node.func.value):
                u = self.tables.usage(rid)
                if at is not None and at > 0:
                    u["columnCount"] = max(u["columnCount"], at)
                made = u.setdefault("made", [])
                for n in made_names:
                    if n not in made and n not in u["columns"]:
                        made.append(n)
        if fname == "get_group" and node.args and isinstance(node.func, ast.Attribute):
            self.group_values(node.func.value, node.args[0])
        # A merge's keys: `on` names columns both frames have, `left_on` the left one's, `right_on` the right one's
        # (`pd.merge(left, right, …)` or `left.merge(right, …)`). The keyword pass below gives keywords to the
        # receiver only: the right frame's file lacked its key, and the merge failed before the crash.
        merge_keys = fname == "merge" and any(k.arg in ("on", "left_on", "right_on") for k in node.keywords)
        if merge_keys:
            left, right, kw = merge_sides(node)
            for arg, sides in (("on", (left, right)), ("left_on", (left,)), ("right_on", (right,))):
                for side in sides if arg in kw else ():
                    for rid in self.table_reads_of(side) if side is not None else ():
                        for n in str_list(kw[arg]):
                            self.tables.column(rid, n, self.index)
        # Columns named as arguments of methods and plotting calls.
        recv = node.func.value if isinstance(node.func, ast.Attribute) else None
        reads = self.table_reads_of(recv) if recv is not None else set()
        data_kw = next((k.value for k in node.keywords if k.arg in ("data", "data_frame")), None)
        if data_kw is not None:
            reads = reads | self.table_reads_of(data_kw)
        # pd.get_dummies(df, columns=[...]), pd.melt(df, id_vars=...): the frame is the first argument.
        if fname in FRAME_FIRST_FUNCS and node.args and not reads:
            reads = self.table_reads_of(node.args[0])
        if reads:
            axis_cols = any(
                k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value in (1, "columns") for k in node.keywords
            ) or (fname == "drop" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value == 1)
            for k in node.keywords:
                if merge_keys and k.arg in ("on", "left_on", "right_on"):
                    continue
                if k.arg in COLUMN_KEYWORDS or (k.arg == "labels" and axis_cols):
                    if fname == "rename" and k.arg == "columns" and isinstance(k.value, ast.Dict):
                        names = [kk.value for kk in k.value.keys if isinstance(kk, ast.Constant) and isinstance(kk.value, str)]
                    else:
                        names = str_list(k.value)
                    for n in names:
                        for rid in self.reads_for(recv, reads, n):
                            c = self.tables.column(rid, n, self.index)
                            if k.arg == "hue" or fname in ("groupby", "countplot", "get_dummies", "crosstab", "pivot_table"):
                                if "category" not in c["hints"]:
                                    c["hints"].append("category")
                            # A split violin (seaborn) draws exactly two hue levels.
                            if k.arg == "hue" and any(kk.arg == "split" and isinstance(kk.value, ast.Constant) and kk.value.value is True for kk in node.keywords):
                                if "two-levels" not in c["hints"]:
                                    c["hints"].append("two-levels")
            if fname in POSITIONAL_COLUMN_METHODS or (fname == "drop" and axis_cols):
                for a in node.args[:1] if fname not in ("nlargest", "nsmallest") else node.args[1:2]:
                    for n in str_list(a):
                        for rid in self.reads_for(recv, reads, n):
                            c = self.tables.column(rid, n, self.index)
                            if fname == "groupby" and "category" not in c["hints"]:
                                c["hints"].append("category")
            # .agg({'col': sum, ...}): the keys are columns, aggregated as numbers.
            if fname in ("agg", "aggregate") and node.args and isinstance(node.args[0], ast.Dict):
                for k in node.args[0].keys:
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        for rid in self.reads_for(recv, reads, k.value):
                            c = self.tables.column(rid, k.value, self.index)
                            if "number" not in c["hints"]:
                                c["hints"].append("number")
            if fname in ("head", "sample", "nlargest") and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int):
                for rid in reads:
                    u = self.tables.usage(rid)
                    u["minRows"] = max(u["minRows"], node.args[0].value)
        # A model fitted on a table's column: its target needs both classes (or numbers, for a regressor).
        if fname in ("fit", "fit_transform", "train_test_split", "cross_val_score", "fit_predict") and len(node.args) >= 2:
            target = node.args[1] if fname != "train_test_split" else None
            strat = next((k.value for k in node.keywords if k.arg == "stratify"), None)
            for t in [x for x in (target, strat) if x is not None]:
                self.mark_target(t, full, node)

    def mark_target(self, t, full, node):
        # y = df['label'] (or df.label) links y to one column; find that column through the assignment history.
        col = self.facts["_series"].get(root_name(t) or "")
        if col is None and isinstance(t, ast.Subscript):
            names = str_list(t.slice)
            rid = self.tables.read_with(self.table_reads_of(t.value), names[0]) if names else None
            col = (rid, names[0]) if rid else None
        if col is None:
            return
        rid, name = col
        c = self.tables.column(rid, name, self.index)
        recv = root_name(node.func.value) if isinstance(node.func, ast.Attribute) else None
        model = self.facts["_models"].get(recv or "", "")
        hint = "target-class" if CLASSIFIER_RE.search(model) or not model else "target-number"
        if hint not in c["hints"]:
            c["hints"].append(hint)

    def note_write(self, node):
        target = node.args[0] if node.args else None
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("dump",) and len(node.args) > 1:
            target = node.args[1]
            if isinstance(target, ast.Call) and call_name(target) == "open" and target.args:
                target = target.args[0]
        p = self.consts.eval(target) if target is not None else None
        if p is not None:
            self.facts["writes"].append(p)


SPLITTERS = {"train_test_split"}


def learn_series_and_models(tree, tables, facts):
    for stmt in tree.body:
        # X_train, X_test, y_train, y_test = train_test_split(X, y): each output is a part of the input it comes from.
        if (
            isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List))
            and isinstance(stmt.value, ast.Call) and call_name(stmt.value) in SPLITTERS
        ):
            outs = stmt.targets[0].elts
            for i, a in enumerate(stmt.value.args):
                src = facts["_series"].get(a.id) if isinstance(a, ast.Name) else None
                for o in outs[2 * i:2 * i + 2]:
                    if isinstance(o, ast.Name):
                        if src is not None:
                            facts["_series"][o.id] = src
                        else:
                            facts["_series"].pop(o.id, None)
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = stmt.value
            name = stmt.targets[0].id
            cols = groupby_columns(v, facts["_groupers"]) if isinstance(v, ast.Call) else []
            if cols:
                facts["_groupers"][name] = cols
            else:
                facts["_groupers"].pop(name, None)
            if isinstance(v, ast.Call) and re.search(r"[A-Z]", call_name(v) or ""):
                facts["_models"][name] = call_name(v) or ""
            if isinstance(v, (ast.Subscript, ast.Attribute)):
                base = v.value
                if isinstance(base, ast.Name) and base.id in tables.links:
                    names = str_list(v.slice) if isinstance(v, ast.Subscript) else ([v.attr] if not frame_attr(v.attr) else [])
                    if len(names) == 1:
                        facts["_series"][name] = (tables.read_with(tables.links[base.id], names[0]), names[0])
                        continue
            facts["_series"].pop(name, None)


def check_names(tree, source):
    """Module-scope bindings and the names used unbound, by pyflakes (or a coarser walk without it)."""
    if _pyflakes_checker is not None:
        w = _pyflakes_checker.Checker(tree, builtins=BUILTINS)
        undefined, star = [], False
        for m in w.messages:
            if isinstance(m, _pyflakes_messages.UndefinedName):
                n = m.message_args[0]
                if n not in undefined:
                    undefined.append(n)
            elif isinstance(m, (_pyflakes_messages.ImportStarUsed, _pyflakes_messages.ImportStarUsage)):
                star = True
        defines = []
        for scope in w.deadScopes:
            if type(scope).__name__ == "ModuleScope":
                defines = [
                    k for k, b in scope.items() if not k.startswith("__") and type(b).__name__ != "Builtin"
                ]
        return sorted(set(defines)), undefined, star, "pyflakes"
    defines, loads = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defines.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defines.add(node.name)
        elif isinstance(node, ast.alias):
            defines.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            defines.add(node.arg)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in defines and node.id not in BUILTINS:
            if node.id not in loads:
                loads.append(node.id)
    return sorted(defines), loads, False, "ast"


def names_run_now(tree):
    """Names loaded where the cell runs them at once: not inside a function or lambda body (those run when called)."""
    out = set()

    def walk(node, deferred):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in getattr(node, "decorator_list", []):
                walk(d, deferred)
            args = node.args
            for d in list(args.defaults) + [x for x in args.kw_defaults if x is not None]:
                walk(d, deferred)
            for b in node.body if isinstance(node.body, list) else [node.body]:
                walk(b, True)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not deferred:
            out.add(node.id)
        for child in ast.iter_child_nodes(node):
            walk(child, deferred)

    walk(tree, False)
    return out


def imports_of(tree):
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append({"module": a.name, "alias": (a.asname or a.name.split(".")[0]), "line": node.lineno, "endLine": getattr(node, "end_lineno", node.lineno), "top": node in tree.body})
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                out.append({"module": node.module, "alias": a.asname or a.name, "line": node.lineno, "endLine": getattr(node, "end_lineno", node.lineno), "top": node in tree.body})
    return out


def loads_of(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
    return sorted(names)


# Calls that change their first argument in place (`np.random.shuffle(X)`): that argument is mutated.
IN_PLACE_FUNCS = {"shuffle", "fill_diagonal", "put", "place", "putmask", "copyto", "exec", "setattr", "delattr"}


# What a saved output shows of a frame, by the expression shown: (kind, column or None, the frame's variable).
FRAME_SHOWS = {"head": "rows", "tail": "rows", "sample": "rows", "info": "info", "describe": "describe"}
COLUMN_SHOWS = {"value_counts": "values", "unique": "values"}
FRAME_ATTR_SHOWS = {"shape": "shape", "columns": "columns", "dtypes": "dtypes"}


def display_kind(node):
    if isinstance(node, ast.Name):
        return "frame", None, node.id
    # df.columns.tolist(), list(df.columns), list(df), df.columns.values, df.keys(): every column, as a list.
    listed = columns_listed(node)
    if listed is not None:
        return "columns", None, listed
    # df.select_dtypes(include='number').columns: some of the columns, exactly spelled, of one kind.
    if isinstance(node, ast.Attribute) and node.attr == "columns" and selected_kind(node.value) is not None:
        return "columns", None, node.value.func.value.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in FRAME_ATTR_SHOWS:
        return FRAME_ATTR_SHOWS[node.attr], None, node.value.id
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None, None, None
    attr, recv = node.func.attr, node.func.value
    if isinstance(recv, ast.Name) and attr in FRAME_SHOWS:
        # describe(include=...) shows other rows than the numeric summary: not parsed.
        if attr == "describe" and node.keywords:
            return None, None, None
        return FRAME_SHOWS[attr], None, recv.id
    if attr == "sum" and isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute) and recv.func.attr in ("isnull", "isna") and isinstance(recv.func.value, ast.Name):
        return "missing", None, recv.func.value.id
    if attr in COLUMN_SHOWS and not node.args and not any(k.arg == "normalize" for k in node.keywords):
        col = None
        if isinstance(recv, ast.Subscript) and isinstance(recv.value, ast.Name):
            key = recv.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                col, frame = key.value, recv.value.id
        elif isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and not frame_attr(recv.attr):
            col, frame = recv.attr, recv.value.id
        if col is not None:
            return COLUMN_SHOWS[attr], col, frame
    return None, None, None


def columns_listed(node):
    """The frame variable whose columns `node` lists whole: df.columns.tolist(), list(df.columns), list(df),
    df.columns.values, df.keys()."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list" and len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        if isinstance(arg, ast.Name):
            return arg.id
        node = arg
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
        if node.func.attr == "keys" and isinstance(node.func.value, ast.Name):
            return node.func.value.id
        if node.func.attr in ("tolist", "to_list"):
            node = node.func.value
        else:
            return None
    elif isinstance(node, ast.Attribute) and node.attr == "values":
        node = node.value
    else:
        return None
    if isinstance(node, ast.Attribute) and node.attr == "columns" and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def selected_kind(node):
    """`df.select_dtypes(include='number')` (or 'object', np.number, [...] of one of them): 'number' or 'object'."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "select_dtypes" and isinstance(node.func.value, ast.Name)):
        return None
    if len(node.keywords) != 1 or node.keywords[0].arg != "include" or node.args:
        return None
    value = node.keywords[0].value
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
    kinds = set()
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            name = item.value
        elif isinstance(item, ast.Attribute):
            name = item.attr
        elif isinstance(item, ast.Name):
            name = item.id
        else:
            return None
        if name in ("number", "float", "int", "float64", "int64", "numeric"):
            kinds.add("number")
        elif name in ("object", "O", "str", "category", "string"):
            kinds.add("object")
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


# Functions whose result is a statistical result object, not a frame (statsmodels, scipy.stats).
RESULT_FUNCS = {
    "seasonal_decompose", "adfuller", "kpss", "acf", "pacf", "ols", "logit", "glm", "ttest_ind", "ttest_rel",
    "ttest_1samp", "pearsonr", "spearmanr", "kendalltau", "chi2_contingency", "f_oneway", "shapiro", "normaltest",
    "linregress", "mannwhitneyu", "wilcoxon", "kruskal",
}
# Classes whose instances are frames (or frame parts): made with them, a value stays linked to its read.
FRAME_CLASSES = {"DataFrame", "Series", "Index", "MultiIndex", "Categorical", "DatetimeIndex", "Timestamp"}


def makes_result_object(value):
    """`ARIMA(train, …)`, `model.fit()`, `seasonal_decompose(df.x)`: a model, a fit or a result, not a frame."""
    if not isinstance(value, ast.Call):
        return False
    name = call_name(value) or ""
    if name == "fit" or name in RESULT_FUNCS:
        return True
    return bool(re.match(r"^[A-Z]", name)) and name not in FRAME_CLASSES


# Methods that change a frame in place whatever their arguments.
IN_PLACE_METHODS = {"insert", "pop", "update", "__setitem__", "__delitem__"}
# Methods that keep a frame's columns and drop or reorder its rows (dropna only along rows).
ROW_METHODS = {"dropna", "drop_duplicates", "sort_values", "sort_index", "head", "tail", "sample", "query", "nlargest", "nsmallest"}


def drops_rows(call):
    """`x.dropna()`, `x.sort_values('a')`, `x.query('a > 1')`: the same columns, some of the rows."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ROW_METHODS):
        return False
    axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
    return axis is None or isinstance(axis, ast.Constant) and axis.value in (0, "index", "rows")


def row_mask(sub):
    """`df[df.a > 0]`, `df[~df.a.isna()]`, `df[:100]`, `df.loc[mask]`, `df.iloc[10:]`: rows, not columns."""
    key = sub.slice
    if isinstance(sub.value, ast.Attribute) and sub.value.attr in ("loc", "iloc"):
        if isinstance(key, ast.Tuple):
            # df.loc[mask, :] keeps every column; df.loc[mask, 'a'] does not.
            if len(key.elts) != 2 or not (isinstance(key.elts[1], ast.Slice) and key.elts[1].lower is None and key.elts[1].upper is None):
                return False
            key = key.elts[0]
        return isinstance(key, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Slice)) or isinstance(key, ast.BinOp) and isinstance(key.op, (ast.BitAnd, ast.BitOr))
    return isinstance(key, (ast.Compare, ast.BoolOp, ast.Slice)) or isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.Invert) or isinstance(key, ast.BinOp) and isinstance(key.op, (ast.BitAnd, ast.BitOr))


def rows_dropped_in_place(stmt):
    """Names whose frame an in-place row method changes (`df.dropna(inplace=True)`): some of its rows remain."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and drops_rows(node) and any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords):
            r = node.func.value
            if isinstance(r, ast.Name):
                yield r.id


def changed_in_place(stmt):
    """Names whose frame the statement changes without rebinding them: stored into (`df['x'] = …`,
    `df.columns = …`, `del df['x']`), augmented, or the receiver of an in-place call (`inplace=True`, `insert`)."""
    out = set(stored_into(stmt))
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            inplace = any(k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and k.value.value is False) for k in node.keywords)
            # Rows dropped in place on the frame itself keep its columns (rows_dropped_in_place).
            rows_only = inplace and drops_rows(node) and isinstance(node.func.value, ast.Name) and all(
                isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords if k.arg == "inplace")
            if (inplace and not rows_only) or node.func.attr in IN_PLACE_METHODS:
                r = root_name(node.func.value)
                if r:
                    out.add(r)
    return out


def stored_into(tree):
    """Names stored into without being rebound (`df['x'] = …`, `df.x = …`, `del df['x']`) or augmented (`n += 1`)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            r = root_name(node.value)
        elif isinstance(node, ast.AugAssign):
            r = root_name(node.target)
        else:
            continue
        if r:
            yield r


def mutates_of(tree):
    """Names a cell may change without rebinding them: stored into (`df['x'] = …`, `df.x = …`, `del df['x']`,
    `n += 1`), the receiver of a method call (`df.drop(…, inplace=True)`, `rows.append(r)`, `model.fit(X, y)`), or
    the first argument of an in-place function (`np.random.shuffle(X)`)."""
    out = set(stored_into(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                r = root_name(node.func.value)
                if r:
                    out.add(r)
            if (call_name(node) or "") in IN_PLACE_FUNCS and node.args:
                r = root_name(node.args[0])
                if r:
                    out.add(r)
    return sorted(out)


# torchvision's datasets kept as IDX files (the same four names each) in <root>/<class name>/raw.
IDX_DATASETS = {"MNIST", "FashionMNIST", "KMNIST"}


# Library calls that fetch a named dataset from the web, and the URL each one reads: the network a replay needs is
# named even when the code holds no URL literal.
DATASET_FETCHERS = {
    "load_dataset": ("seaborn", "https://raw.githubusercontent.com/mwaskom/seaborn-data/master/{}.csv"),
    "dataset_download": ("kagglehub", "https://www.kaggle.com/datasets/{}"),
    "competition_download": ("kagglehub", "https://www.kaggle.com/competitions/{}"),
}


def fetched_datasets(tree, consts):
    """`sns.load_dataset('titanic')`, `kagglehub.dataset_download('owner/name')`: (url, line, call) each."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = dotted(node.func) or ""
        leaf = name.split(".")[-1]
        fetcher = DATASET_FETCHERS.get(leaf)
        if not fetcher:
            continue
        lib, template = fetcher
        # seaborn's load_dataset only through its module (datasets' `load_dataset` is Hugging Face's, another host).
        if lib == "seaborn" and not re.match(r"^(?:sns|seaborn)\.", name):
            continue
        arg = consts.eval(node.args[0])
        if arg and re.fullmatch(r"[\w.\-/]+", arg):
            yield template.format(arg), node.lineno, "%s.%s" % (lib, leaf)


def strings_of(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node


def analyze(cells):
    LIST_CONSTANTS.clear()
    VALUE_CONSTANTS.clear()
    TEXT_SOURCES.clear()
    consts = Constants()
    tables = Tables()
    facts_out = []
    checker = "pyflakes" if _pyflakes_checker is not None else "ast"
    models, series, groupers = {}, {}, {}
    for cell in cells:
        source = cell["source"]
        facts = {"index": cell["index"], "parsed": True, "defines": [], "undefined": [], "undefinedNow": [], "loads": [], "imports": [], "shell": shell_lines(source), "urls": [], "reads": [], "writes": [], "gpu": [], "star": False, "magics": [], "literals": [], "paths": []}
        for i, line in enumerate(source.split("\n")):
            if GPU_RE.search(line) and not line.strip().startswith("#"):
                facts["gpu"].append({"line": i + 1, "text": line.strip()[:200]})
            m = re.match(r"^\s*%(run|load|load_ext|cd)\s+(.*)$", line)
            if m:
                facts["magics"].append({"line": i + 1, "magic": m.group(1), "arg": m.group(2).strip()})
        for sh in facts["shell"]:
            for u in URL_RE.findall(sh["command"]):
                facts["urls"].append({"url": u.rstrip(".,;"), "line": sh["line"], "call": "shell"})
        code = transform(source)
        try:
            tree = ast.parse(code)
        except SyntaxError as e:
            facts["parsed"] = False
            facts["syntaxError"] = "%s (line %s)" % (e.msg, e.lineno)
            facts_out.append(facts)
            continue
        facts["defines"], facts["undefined"], facts["star"], checker = check_names(tree, code)
        now = names_run_now(tree)
        facts["undefinedNow"] = [n for n in facts["undefined"] if n in now]
        facts["imports"] = imports_of(tree)
        facts["loads"] = loads_of(tree)
        facts["mutates"] = mutates_of(tree)
        facts["_read_ids"] = {}
        facts["_models"] = models
        facts["_series"] = series
        facts["_groupers"] = groupers
        CellAnalyzer(cell["index"], consts, tables, facts).run(tree)
        seen = {u["url"] for u in facts["urls"]}
        # `URL = ROOT + 'datasets/x.tgz'`: the URL the code builds from string constants, named whole (the root
        # literal alone is no file; a function may take the built one as a default argument).
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if isinstance(stmt.value, ast.Constant):
                    continue
                v = consts.eval(stmt.value)
                if v is not None and URL_RE.fullmatch(v) and v not in seen and "get_ipython" not in v:
                    seen.add(v)
                    facts["urls"].append({"url": v.rstrip(".,;"), "line": stmt.lineno, "call": "constant"})
        for url, line, call in fetched_datasets(tree, consts):
            if url not in seen:
                seen.add(url)
                facts["urls"].append({"url": url, "line": line, "call": call})
        for node in strings_of(tree):
            for u in URL_RE.findall(node.value):
                if u not in seen and "get_ipython" not in u:
                    seen.add(u)
                    parent_call = None
                    facts["urls"].append({"url": u.rstrip(".,;"), "line": getattr(node, "lineno", 0), "call": parent_call or ""})
        for r in facts["reads"]:
            if URL_RE.match(r["path"]) and r["path"] not in seen:
                facts["urls"].append({"url": r["path"], "line": r["line"], "call": r["call"]})
        # Path-like literals nobody calls a reader on (e.g. handed to a helper function).
        named = [r["path"] for r in facts["reads"]] + facts["writes"]
        facts["paths"] = sorted(
            {
                n.value
                for n in strings_of(tree)
                if PATH_EXT_RE.search(n.value)
                and "\n" not in n.value
                and len(n.value) < 300
                and "://" not in n.value
                and not any(p.endswith(n.value) for p in named)
            }
        )
        # A string the cell reads as a file is a literal to rewrite, whatever its extension.
        read_paths = {r["path"] for r in facts["reads"]}
        facts["literals"] = sorted(
            {
                n.value
                for n in strings_of(tree)
                if len(n.value) < 300
                and "\n" not in n.value
                and ("/" in n.value or "\\" in n.value or "%Y" in n.value or PATH_EXT_RE.search(n.value) or n.value in read_paths)
            }
        )
        # Dates the code names (`df.loc['1949-01':'1957-12']`, `df['1950']`): a derived date column spans them.
        facts["dates"] = sorted({n.value for n in strings_of(tree) if DATE_LITERAL_RE.match(n.value) and 1800 <= int(n.value[:4]) <= 2100})
        for k in ("_read_ids", "_models", "_series", "_groupers"):
            facts.pop(k, None)
        facts_out.append(facts)
    usage = {}
    for rid, u in tables.reads.items():
        out = dict(u)
        if rid in tables.renamed:
            out["renamed"] = tables.renamed[rid]
        usage[rid] = out
    return {"checker": checker, "cells": facts_out, "tables": usage}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    json.dump(analyze(request["cells"]), sys.stdout, sort_keys=True, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
