"""The framing of swarmsim-env/2, both ways, without a server."""

import io
import json
import struct
import unittest

import numpy as np

from swarmsim import ProtocolError, _wire


def stream(b):
    return io.BufferedReader(io.BytesIO(b))


class WireTest(unittest.TestCase):
    def test_round_trip(self):
        obs = np.arange(12, dtype=np.float32).reshape(3, 4)
        mask = np.array([[True, False], [False, True], [True, True]])
        msg = _wire.encode({"ok": True}, [("obs", obs), ("mask", mask), ("agent", np.array([0, 7, -2])), ("r", np.array([0.5, np.nan, -1e300]))])
        head, arrays = _wire.read(stream(msg))
        self.assertEqual([d["dtype"] for d in head["arrays"]], ["f4", "u1", "i4", "f8"])
        np.testing.assert_array_equal(arrays["obs"], obs)
        np.testing.assert_array_equal(arrays["mask"].view(bool), mask)
        np.testing.assert_array_equal(arrays["agent"], [0, 7, -2])
        np.testing.assert_array_equal(arrays["r"], [0.5, np.nan, -1e300])
        arrays["obs"][0, 0] = 9  # replies are writable, as Gymnasium's are

    def test_cached_headers_give_fresh_arrays(self):
        cache = {}
        one = _wire.encode({"ok": True}, [("x", np.array([1.0, 2.0]))])
        two = _wire.encode({"ok": True}, [("x", np.array([3.0, 4.0]))])
        (h1, a1), (h2, a2) = _wire.read(stream(one), cache), _wire.read(stream(two), cache)
        self.assertEqual(len(cache), 1)  # the same header, parsed once
        self.assertEqual(h1, h2)
        np.testing.assert_array_equal(a1["x"], [1, 2])
        np.testing.assert_array_equal(a2["x"], [3, 4])
        h2["ok"] = False  # a caller's change reaches neither the cache nor the next reply
        self.assertTrue(_wire.read(stream(one), cache)[0]["ok"])

    def test_layout_is_the_documented_one(self):
        # Length prefix (little-endian uint32), the JSON header, then the
        # payload little-endian in C order, with no padding.
        msg = _wire.encode({"op": "step"}, [("actions", np.array([1, 258], dtype=np.int64))])
        (n,) = struct.unpack("<I", msg[:4])
        head = json.loads(msg[4:4 + n])
        self.assertEqual(head["arrays"], [{"name": "actions", "dtype": "i4", "shape": [2]}])
        self.assertEqual(msg[4 + n:], b"\x01\x00\x00\x00\x02\x01\x00\x00")

    def test_truncated_replies_are_errors(self):
        msg = _wire.encode({"ok": True}, [("x", np.zeros(4))])
        for cut in (0, 2, 4, 10, len(msg) - 1):
            with self.subTest(cut=cut), self.assertRaises(ProtocolError):
                _wire.read(stream(msg[:cut]))

    def test_malformed_headers_are_errors(self):
        for bad, want in [
            (struct.pack("<I", 3) + b"[1]", "not a JSON object"),
            (struct.pack("<I", 3) + b"{x}", "not JSON"),
            (struct.pack("<I", _wire.MAX_HEADER + 1), "limit"),
            (_wire.encode({"ok": True, "arrays": [{"name": "x", "dtype": "c16", "shape": [1]}]}), "c16"),
        ]:
            with self.subTest(want=want), self.assertRaisesRegex(ProtocolError, want):
                _wire.read(stream(bad))

    def test_unsupported_dtype_is_refused_when_sending(self):
        with self.assertRaises(TypeError):
            _wire.encode({}, [("s", np.array(["a"]))])


if __name__ == "__main__":
    unittest.main()
