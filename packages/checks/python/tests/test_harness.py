"""The checks harness in a real IPython shell (no kernel): what it records while cells run, and how checks report.

Run by packages/checks/src/checks-harness.kernel.test.ts (python3 -m unittest discover -s tests)."""

import io
import json
import os
import sys
import unittest
from contextlib import redirect_stdout

HARNESS = os.path.join(os.path.dirname(__file__), "..", "jbchecks", "harness.py")
MARK = "__junobench_checks__:"


def make_shell():
    from IPython.core.interactiveshell import InteractiveShell

    InteractiveShell.clear_instance()
    return InteractiveShell.instance()


class Run:
    """Cells run in a fresh shell with the harness installed as the probe's setup installs it."""

    def __init__(self, cells, ename="ValueError", libraries=("pandas", "numpy", "matplotlib"), checks=None, snapshot_from=None):
        self.ip = make_shell()
        with open(HARNESS, encoding="utf-8") as f:
            source = f.read()
        config = {"ename": ename, "libraries": list(libraries), "snapshotFrom": snapshot_from}
        setup = '(lambda s, c: exec(compile(s, "<junobench-checks>", "exec"), {"__name__": "__junobench_checks__", "CONFIG": c}))(%s, __import__("json").loads(%s))' % (
            json.dumps(source),
            json.dumps(json.dumps(config)),
        )
        out = io.StringIO()
        with redirect_stdout(out):
            assert self.ip.run_cell(setup, silent=True).success
            self.ok = [self.ip.run_cell(c).success for c in cells]
            finish = '__import__("sys").modules["__junobench_checks__"].harness.finish("NONCE", %s)' % (
                "None" if checks is None else json.dumps(checks)
            )
            self.ip.run_cell(finish, silent=True)
        sys.settrace(None)
        self.lines = [json.loads(l.split(" ", 1)[1]) for l in out.getvalue().splitlines() if l.startswith(MARK + "NONCE ")]

    @property
    def evidence(self):
        return next(l["evidence"] for l in self.lines if "evidence" in l)

    def kinds(self):
        return sorted({e["kind"] for e in self.evidence})

    @property
    def checks(self):
        return [l for l in self.lines if "check" in l]


PREP = "import contextlib\nimport pandas as pd\ndf = pd.DataFrame({'units': [1.0, None, 3.0]})"
CAST = "df['units'] = df['units'].astype(int)"


class SwallowedTest(unittest.TestCase):
    def test_every_route_that_hides_the_labelled_exception_is_recorded(self):
        routes = {
            "try": "try:\n    %s\nexcept Exception:\n    pass" % CAST,
            "getattr suppress": "with getattr(contextlib, 'suppress')(Exception):\n    %s" % CAST,
            "exec string": "exec(%r)" % ("try:\n    %s\nexcept Exception:\n    pass" % CAST),
            "decorator": "def quiet(f):\n    def g():\n        try:\n            f()\n        except Exception:\n            pass\n    return g\n@quiet\ndef go():\n    %s\ngo()" % CAST,
            "context manager": "@contextlib.contextmanager\ndef calm():\n    try:\n        yield\n    except Exception:\n        pass\nwith calm():\n    %s" % CAST,
            "ipython hook": "get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)\n%s" % CAST,
        }
        for name, cell in routes.items():
            with self.subTest(name):
                run = Run([PREP, cell])
                if all(run.ok):
                    swallowed = [e for e in run.evidence if e["kind"] == "swallowed"]
                    self.assertTrue(swallowed, run.evidence)
                    self.assertEqual(swallowed[0]["ename"], "pandas.errors.IntCastingNaNError")
                    self.assertEqual(swallowed[0]["position"], 1)

    def test_what_libraries_catch_inside_themselves_is_not_evidence(self):
        # shutil catches KeyError for a missing COLUMNS; pandas tries and falls back internally.
        run = Run(["import shutil, pandas as pd\nshutil.get_terminal_size()\npd.to_numeric(pd.Series(['1', 'x']), errors='coerce')"], ename="KeyError")
        self.assertEqual(run.evidence, [])

    def test_another_class_is_not_evidence(self):
        run = Run(["try:\n    {}['a']\nexcept KeyError:\n    pass"], ename="ValueError")
        self.assertEqual(run.evidence, [])

    def test_switching_the_tracing_off_is_evidence(self):
        run = Run(["import sys\nsys.settrace(None)"])
        self.assertIn("tracing", run.kinds())


class ReplacedTest(unittest.TestCase):
    def setUp(self):
        import pandas

        self.astype = pandas.core.generic.NDFrame.astype

    def tearDown(self):
        # One process for every test: put pandas back as it was.
        import pandas

        pandas.core.generic.NDFrame.astype = self.astype
        if "astype" in vars(pandas.Series):
            del pandas.Series.astype

    def test_a_library_method_replaced_by_the_notebooks_code(self):
        run = Run([PREP, "pd.Series.astype = lambda s, *a, **k: s.fillna(0)", CAST])
        replaced = [e for e in run.evidence if e["kind"] == "replaced"]
        self.assertEqual([e["what"] for e in replaced], ["pandas.core.series.Series.astype"])

    def test_replaced_through_setattr_in_an_exec_string(self):
        run = Run([PREP, "exec(\"import pandas\\ndef f(*a, **k):\\n    return a[0]\\nsetattr(pandas.core.generic.NDFrame, 'astype', f)\")", CAST])
        self.assertIn("pandas.core.generic.NDFrame.astype", [e.get("what") for e in run.evidence])

    def test_ordinary_use_of_libraries_is_not_evidence(self):
        cells = [
            "import numpy as np, pandas as pd, matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt",
            "pd.set_option('display.max_columns', 10)\nnp.random.seed(0)\nplt.plot([1, 2])\nplt.close('all')",
            "@pd.api.extensions.register_dataframe_accessor('geo')\nclass Geo:\n    def __init__(self, obj):\n        self.obj = obj",
            "class Sub(pd.DataFrame):\n    def astype(self, *a, **k):\n        return super().astype(*a, **k)\nSub({'a': [1]}).astype(float)",
        ]
        run = Run(cells)
        self.assertTrue(all(run.ok))
        self.assertEqual(run.evidence, [])


class ChecksTest(unittest.TestCase):
    CHECKS = (
        "def check_units_integer():\n    '''units are whole numbers'''\n    assert df['units'].dtype.kind == 'i', str(df['units'].dtype)\n\n"
        "def check_no_missing():\n    '''no missing units'''\n    assert df['units'].notna().all()\n\n"
        "def check_plot():\n    '''a figure titled T has a line'''\n    assert any(ax.lines for ax in jb.axes('T'))\n\n"
        "def check_printed():\n    '''the count is printed'''\n    assert 'rows: 2' in jb.printed()\n"
    )

    def test_each_check_reports_with_its_reason_and_error(self):
        cells = [PREP, "df = df.dropna()\nprint('rows:', len(df))", "import matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\nax.set_title('T')\ndisplay(fig)\nplt.close(fig)"]
        run = Run(cells, checks=self.CHECKS)
        results = {c["check"]: c for c in run.checks}
        self.assertEqual(list(results), ["check_units_integer", "check_no_missing", "check_plot", "check_printed"])
        self.assertEqual(results["check_units_integer"]["reason"], "units are whole numbers")
        self.assertFalse(results["check_units_integer"]["passed"])
        self.assertEqual(results["check_units_integer"]["error"], "AssertionError: float64")
        self.assertTrue(results["check_no_missing"]["passed"])
        self.assertTrue(results["check_plot"]["passed"])
        self.assertTrue(results["check_printed"]["passed"])
        self.assertEqual(run.lines[-1], {"done": True})

    def test_a_name_the_notebook_never_bound_fails_the_check(self):
        run = Run(["x = 1"], checks="def check_model():\n    '''the model exists'''\n    model.predict\n")
        self.assertEqual(run.checks[0]["error"], "NameError: name 'model' is not defined")

    def test_a_broken_checks_file_is_reported(self):
        run = Run(["x = 1"], checks="def check_x(:\n")
        self.assertTrue(any("checksError" in l for l in run.lines))

    def test_checks_do_not_change_the_notebooks_namespace(self):
        run = Run(["x = 1"], checks="def check_x():\n    '''x is 1'''\n    assert x == 1\n")
        self.assertNotIn("check_x", run.ip.user_ns)
        self.assertTrue(run.checks[0]["passed"])


class SnapshotTest(unittest.TestCase):
    def test_names_bound_or_changed_from_the_position_on(self):
        cells = ["import pandas as pd\na = pd.DataFrame({'u': [1.0, None]})\nb = 1", "a['u'] = a['u'].fillna(0)\nc = [1, 2, 3]\nprint('done')"]
        run = Run(cells, snapshot_from=1)
        snap = next(l["snapshot"] for l in run.lines if "snapshot" in l)
        self.assertEqual(sorted(snap["names"]), ["a", "c"])
        self.assertEqual(snap["names"]["a"]["missing"], {"u": 0})
        self.assertEqual(snap["names"]["c"]["sum"], 6.0)
        self.assertEqual(snap["printed"][-1], {"position": 1, "text": "done\n"})


if __name__ == "__main__":
    unittest.main()
