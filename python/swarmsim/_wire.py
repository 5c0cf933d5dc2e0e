"""The framing of swarmsim-env/2 (docs/environment.md): a 4-byte
little-endian header length, a UTF-8 JSON header, then the binary arrays the
header lists, little-endian and C-ordered, back to back."""

import json
import math
import struct

import numpy as np

# The wire's dtypes and numpy's; booleans travel as u1 and are viewed as bool.
DTYPES = {"u1": np.dtype("u1"), "i4": np.dtype("<i4"), "f4": np.dtype("<f4"), "f8": np.dtype("<f8")}
MAX_HEADER = 16 << 20
_LEN = struct.Struct("<I")
# The parsed headers read keeps: more than the numbers of episodes that
# end in one step in practice.
_CACHE = 256


class ProtocolError(RuntimeError):
    """The server broke the framing, or went away mid-message."""


def encode(header, arrays=()):
    """Returns one message: header (a dict) and the (name, array) pairs,
    whose descriptions encode adds to the header as "arrays"."""
    blobs = []
    if arrays:
        descs = []
        for name, a in arrays:
            code = _code(a.dtype)
            a = np.ascontiguousarray(a, dtype=DTYPES[code])
            descs.append({"name": name, "dtype": code, "shape": list(a.shape)})
            blobs.append(a.tobytes())
        header = dict(header, arrays=descs)
    head = json.dumps(header, separators=(",", ":")).encode()
    return b"".join([_LEN.pack(len(head)), head, *blobs])


def _code(dt):
    if dt == np.bool_ or dt == np.uint8:
        return "u1"
    if dt.kind in "iu":
        return "i4"
    if dt == np.float32:
        return "f4"
    if dt.kind == "f":
        return "f8"
    raise TypeError(f"swarmsim: no wire type for dtype {dt}")


def read(stream, cache=None):
    """Reads one message from a binary stream; returns (header, arrays),
    arrays a dict of name -> numpy array over one buffer read at once. Raises
    ProtocolError on end of stream or a malformed message. cache, a dict
    the caller keeps, remembers parsed headers: a server repeats a few
    headers (step's differs only in how many episodes ended), which then
    cost no parsing."""
    n = _exact(stream, _LEN.size, "the header's length")
    (size,) = _LEN.unpack(n)
    if size > MAX_HEADER:
        raise ProtocolError(f"swarmsim: reply header of {size} bytes (the limit is {MAX_HEADER})")
    raw = _exact(stream, size, "the header")
    parsed = cache.get(raw) if cache is not None else None
    if parsed is None:
        parsed = _parse(raw)
        if cache is not None:
            if len(cache) >= _CACHE:
                cache.clear()
            cache[raw] = parsed
    header, layout, total = parsed
    arrays = {}
    if total:
        # One writable buffer for all arrays: callers may modify obs in place.
        buf = bytearray(total)
        got = stream.readinto(buf)
        while got < total:
            more = stream.readinto(memoryview(buf)[got:])
            if not more:
                raise ProtocolError(f"swarmsim: the server closed the stream inside a reply's arrays ({got} of {total} bytes)")
            got += more
        for name, dt, shape, off, count in layout:
            a = np.frombuffer(buf, dtype=dt, count=count, offset=off)
            arrays[name] = a if len(shape) == 1 else a.reshape(shape)
    return dict(header), arrays


def _parse(raw):
    """The header, its arrays' layout (name, dtype, shape, offset, count)
    and the payload's length."""
    try:
        header = json.loads(raw)
    except ValueError as e:
        raise ProtocolError(f"swarmsim: reply header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise ProtocolError("swarmsim: reply header is not a JSON object")
    layout, total = [], 0
    for d in header.get("arrays") or []:
        dt = DTYPES.get(d.get("dtype"))
        if dt is None:
            raise ProtocolError(f"swarmsim: reply array {d.get('name')!r} has dtype {d.get('dtype')!r} (allowed: u1, i4, f4, f8)")
        shape = tuple(int(s) for s in d.get("shape", ()))
        count = math.prod(shape)
        layout.append((d["name"], dt, shape, total, count))
        total += count * dt.itemsize
    return header, layout, total


def _exact(stream, n, what):
    b = stream.read(n)
    if len(b) != n:
        raise ProtocolError(f"swarmsim: the server closed the stream while sending {what} ({len(b)} of {n} bytes)")
    return b
