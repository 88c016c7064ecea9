import io
import json
import os
import sys
import tempfile
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

    def test_a_package_installed_or_upgraded_gives_another_line(self):
        with tempfile.TemporaryDirectory() as d:
            sys.path.append(d)
            try:
                empty = fingerprint()
                os.mkdir(os.path.join(d, "demo-1.0.dist-info"))
                installed = fingerprint()
                os.rename(os.path.join(d, "demo-1.0.dist-info"), os.path.join(d, "demo-1.1.dist-info"))
                upgraded = fingerprint()
            finally:
                sys.path.remove(d)
        self.assertEqual(installed["count"], empty["count"] + 1)
        self.assertEqual(len({empty["distributions"], installed["distributions"], upgraded["distributions"]}), 3)

    def test_a_metadata_folder_without_a_version_in_its_name_counts_with_its_version(self):
        with tempfile.TemporaryDirectory() as d:
            egg = os.path.join(d, "legacy.egg-info")
            os.mkdir(egg)
            with open(os.path.join(egg, "PKG-INFO"), "w") as f:
                f.write("Metadata-Version: 1.2\nName: legacy\nVersion: 3.4\n\nbody\n")
            sys.path.append(d)
            try:
                self.assertIn("legacy.egg-info==3.4", probe._distribution_entries())
                before = fingerprint()
                with open(os.path.join(egg, "PKG-INFO"), "w") as f:
                    f.write("Metadata-Version: 1.2\nName: legacy\nVersion: 3.5\n")
                self.assertNotEqual(fingerprint()["distributions"], before["distributions"])
            finally:
                sys.path.remove(d)

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
