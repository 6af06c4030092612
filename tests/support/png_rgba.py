"""The tests' one PNG reader: 8-bit RGBA, every row filter (libpng's writer
picks them, see src/consumers/png.cpp)."""

import struct
import zlib


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png_bytes(data):
    """(width, height, rows of RGBA bytes, top row first)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body[:13])
            assert (depth, colour, interlace) == (8, 6, 0), "8-bit RGBA, not interlaced"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride, bpp = width * 4, 4
    rows, prior = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up = prior[x]
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                upleft = prior[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + _paeth(left, up, upleft)) & 0xFF
            else:
                assert kind == 0, f"row filter {kind}"
        rows.append(bytes(line))
        prior = line
    return width, height, rows


def read_png(path):
    with open(path, "rb") as f:
        return read_png_bytes(f.read())
