"""The runner's wire protocol: plans in, typed messages out."""

import io
import json
import threading
import unittest

import hashlib
import hmac

from jbrunner.protocol import Emitter, parse_key, parse_plan, rejected_message, result_message, sign_line, started_message, strip_ansi

PLAN = {"id": "7", "notebook": "/w/a.ipynb", "cells": [0, 2, 2], "cwd": "/w", "cellTimeoutSeconds": 10, "timeoutSeconds": 60.5}


class ParsePlanTest(unittest.TestCase):
    def test_accepts_a_plan(self):
        self.assertEqual(parse_plan(json.dumps(PLAN)), PLAN)

    def test_rejects_what_is_not_a_plan(self):
        cases = [
            ("[]", "JSON object"),
            (json.dumps({k: v for k, v in PLAN.items() if k != "cwd"}), "'cwd'"),
            (json.dumps(dict(PLAN, cells=[0, -1])), "code-cell indices"),
            (json.dumps(dict(PLAN, cells=[True])), "code-cell indices"),
            (json.dumps(dict(PLAN, timeoutSeconds="60")), "'timeoutSeconds'"),
            (json.dumps(dict(PLAN, id=7)), "'id'"),
        ]
        for text, expected in cases:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    parse_plan(text)
                self.assertIn(expected, str(cm.exception))

    def test_invalid_json_is_a_value_error(self):
        with self.assertRaises(ValueError):
            parse_plan("{not json")


class MessagesTest(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(started_message("3", "forked"), {"type": "started", "id": "3", "kernel": "forked"})
        result = {"id": "3", "status": "completed", "cells": [], "durationMs": 1.0}
        self.assertEqual(result_message(result), {"type": "result", "id": "3", "result": result})

    def test_started_names_a_known_kernel_kind(self):
        with self.assertRaises(AssertionError):
            started_message("3", "spawned")

    def test_rejected_carries_the_plan_id_when_the_line_has_one(self):
        self.assertEqual(rejected_message('{"id": "9"}', "bad")["id"], "9")
        self.assertNotIn("id", rejected_message("garbage", "bad"))
        self.assertEqual(len(rejected_message("x" * 1000, "bad")["line"]), 200)


class EmitterTest(unittest.TestCase):
    def test_one_whole_line_per_message_from_many_threads(self):
        out = io.StringIO()
        emit = Emitter(out)
        big = "x" * 5000

        def burst(n):
            for i in range(200):
                emit({"type": "started", "id": "%d-%d" % (n, i), "kernel": "forked", "pad": big})

        threads = [threading.Thread(target=burst, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 800)
        for line in lines:
            self.assertEqual(json.loads(line)["pad"], big)


class StripAnsiTest(unittest.TestCase):
    def test_removes_colours_and_titles(self):
        self.assertEqual(strip_ansi("\x1b[0;31mValueError\x1b[0m: x\x1b]0;title\x07"), "ValueError: x")
        self.assertEqual(strip_ansi(None), "")


if __name__ == "__main__":
    unittest.main()


class SignedLinesTest(unittest.TestCase):
    KEY = bytes(range(32))

    def test_a_signed_line_is_json_whose_mac_covers_the_rest(self):
        message = started_message("3", "forked")
        line = sign_line(dict(message, note="caf\u00e9"), self.KEY)
        self.assertTrue(line.isascii())
        self.assertTrue(line.startswith('{"mac":"'))
        mac, body = line[8:72], "{" + line[74:]
        self.assertEqual(mac, hmac.new(self.KEY, body.encode(), hashlib.sha256).hexdigest())
        self.assertEqual(json.loads(body), dict(message, note="caf\u00e9"))
        self.assertEqual(json.loads(line)["mac"], mac)

    def test_unsigned_without_a_key(self):
        self.assertEqual(json.loads(sign_line({"type": "started"}, None)), {"type": "started"})

    def test_the_key_is_64_hex_digits(self):
        self.assertEqual(parse_key("ab" * 32 + "\n"), bytes([0xAB]) * 32)
        for bad in ("", "go", "ab" * 31, "AB" * 32, "zz" * 32):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                parse_key(bad)

    def test_the_emitter_signs_with_its_key(self):
        out = io.StringIO()
        Emitter(out, key=self.KEY)({"type": "started", "id": "1", "kernel": "forked"})
        self.assertTrue(out.getvalue().startswith('{"mac":"'))
