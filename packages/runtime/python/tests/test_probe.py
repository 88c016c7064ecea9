import io
import json
import sys
import unittest

from jbrunner import probe


def fingerprint():
    out = io.StringIO()
    probe.fingerprint(out=out)
    return json.loads(out.getvalue())


class FingerprintTest(unittest.TestCase):
    def test_the_same_state_gives_the_same_line(self):
        self.assertEqual(fingerprint(), fingerprint())

    def test_another_import_path_gives_another_line(self):
        # The toolchain keeps probe results under this line: a module made
        # importable by PYTHONPATH alone must not be answered from the cache.
        before = fingerprint()
        sys.path.append("/nonexistent/extra")
        try:
            after = fingerprint()
        finally:
            sys.path.remove("/nonexistent/extra")
        self.assertNotEqual(before["paths"], after["paths"])
        self.assertEqual(before["distributions"], after["distributions"])

    def test_the_runners_own_folder_does_not_count(self):
        before = fingerprint()
        saved = sys.path[0]
        sys.path[0] = "/elsewhere"
        try:
            self.assertEqual(fingerprint(), before)
        finally:
            sys.path[0] = saved


if __name__ == "__main__":
    unittest.main()
