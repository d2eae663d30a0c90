#!/usr/bin/env python3
"""Prints the fraction of a PNG's pixels that are not white (or, given a region, that
and the fraction in colour) (8-bit RGB/RGBA, no
interlace, as Chromium writes screenshots). Standard library only."""
import struct, sys, zlib

def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    out = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(line)
        prev = line
    return w, h, bpp, out

w, h, bpp, rows = pixels(sys.argv[1])
if len(sys.argv) > 2:
    # Regions x y w h ... (CSS pixels = screenshot pixels at scale 1), one line each: the
    # fraction of its pixels not white, and of those in colour (channels apart by more
    # than 40: the figures' series, bars and cells; axes, grid and borders are grey).
    v = [int(a) for a in sys.argv[2:]]
    for x0, y0, cw, ch in zip(v[0::4], v[1::4], v[2::4], v[3::4]):
        ink = colour = n = 0
        for line in rows[max(y0, 0):min(y0 + ch, h)]:
            for x in range(max(x0, 0), min(x0 + cw, w), 2):
                r, g, b = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
                n += 1
                if r < 240 or g < 240 or b < 240:
                    ink += 1
                if max(r, g, b) - min(r, g, b) > 40:
                    colour += 1
        print(ink / max(n, 1), colour / max(n, 1))
    sys.exit(0)
ink = 0
for line in rows:
    for x in range(0, w * bpp, bpp * 4):  # every 4th pixel is plenty
        if line[x] < 240 or line[x + 1] < 240 or line[x + 2] < 240:
            ink += 1
print(ink / (h * ((w + 3) // 4)))
