"""Which notebooks get the zygote's objects back for the garbage collector."""

import json
import os
import tempfile
import unittest

from jbrunner.kernels import prewarm_modules, uses_gc


def notebook_with(*sources):
    fd, path = tempfile.mkstemp(suffix=".ipynb")
    with os.fdopen(fd, "w") as f:
        json.dump({"nbformat": 4, "cells": [{"cell_type": "code", "source": s} for s in sources]}, f)
    return path


class UsesGcTest(unittest.TestCase):
    def test_table(self):
        cases = [
            ("import gc\ngc.collect()", True),
            ("from gc import get_objects", True),
            ("import os, gc", True),
            ("m = __import__('gc')", True),
            ("import numpy as np\nx = np.arange(3)", False),
            ("dgc = 1\nlogc.gc_rate = 2", False),  # other names that contain gc
            ("import ggc", False),
        ]
        for source, expected in cases:
            with self.subTest(source=source):
                path = notebook_with(source)
                self.addCleanup(os.unlink, path)
                self.assertEqual(uses_gc({"notebook": path}), expected)

    def test_unreadable_notebook_counts_as_using_gc(self):
        self.assertTrue(uses_gc({"notebook": "/nonexistent/nb.ipynb"}))


class PrewarmModulesTest(unittest.TestCase):
    def test_only_module_names(self):
        plan = {"prewarm": ["numpy", "sklearn.svm", "os; rm -rf /", "", 3, "_ok"]}
        self.assertEqual(prewarm_modules(plan), ["numpy", "sklearn.svm", "_ok"])
        self.assertEqual(prewarm_modules({}), [])


if __name__ == "__main__":
    unittest.main()
