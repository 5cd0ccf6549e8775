"""sitebuild/heap_snapshot.py: finding the wasm's data segment and packing the heap against
it, checked by undoing the packing as the worker does (gunzip, then XOR the segment back)."""
from __future__ import annotations

import gzip
import random

import pytest

from sitebuild.common import BuildError
from sitebuild.heap_snapshot import data_segment, pack


def leb128(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def section(kind: int, body: bytes) -> bytes:
    return bytes([kind]) + leb128(len(body)) + body


def wasm_with(*segments: bytes, offset_expr: bytes = b"\x23\x00") -> bytes:
    """A module with a type section, then a data section of active segments (memory 0) whose
    offset is offset_expr (default: global.get 0, as a side module's __memory_base)."""
    data = leb128(len(segments)) + b"".join(
        b"\x00" + offset_expr + b"\x0b" + leb128(len(s)) + s for s in segments)
    return b"\x00asm\x01\x00\x00\x00" + section(1, b"\x01\x60\x00\x00") + section(11, data)


def unpack(packed: bytes, wasm: bytes, heap_at: int) -> bytes:
    start, length = data_segment(wasm)
    heap = bytearray(gzip.decompress(packed))
    for i in range(length):
        heap[heap_at + i] ^= wasm[start + i]
    return bytes(heap)


@pytest.mark.parametrize("length", [5, 300, 70_000])  # LEB128 lengths of 1, 2 and 3 bytes
def test_the_segment_is_found_and_the_packing_undone(length):
    rng = random.Random(length)
    segment = rng.randbytes(length)
    wasm = wasm_with(segment)
    start, found = data_segment(wasm)
    assert found == length and wasm[start:start + length] == segment
    # a booted heap: the segment where instantiation put it, a few bytes changed by the boot
    heap_at = 1024
    heap = bytearray(rng.randbytes(heap_at)) + bytearray(segment) + bytearray(4096)
    for i in rng.sample(range(len(heap)), 20):
        heap[i] = rng.randrange(256)
    packed = pack(bytes(heap), segment, heap_at)
    assert unpack(packed, wasm, heap_at) == heap
    if length > 1000:  # what the boot left unchanged packs to almost nothing
        assert len(packed) < heap_at + length // 20


def test_a_constant_offset_is_read_too():
    wasm = wasm_with(b"abc", offset_expr=b"\x41\x80\x08")  # i32.const 1024
    start, length = data_segment(wasm)
    assert wasm[start:start + length] == b"abc"


@pytest.mark.parametrize("wasm, message", [
    (wasm_with(b"a", b"b"), "one active data segment"),
    (wasm_with(b"a", offset_expr=b"\x23\x00\x23\x00"), "data segment offset"),
    (b"\x00asm\x01\x00\x00\x00" + section(1, b"\x00"), "no data section"),
])
def test_a_wasm_of_another_shape_stops_the_build(wasm, message):
    with pytest.raises(BuildError, match=message):
        data_segment(wasm)


def test_a_heap_too_small_for_the_segment_stops_the_build():
    with pytest.raises(BuildError, match="smaller than the wasm's data"):
        pack(bytes(100), b"x" * 50, 80)
