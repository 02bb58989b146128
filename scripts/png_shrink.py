#!/usr/bin/env python3
"""scripts/png_shrink.py IN.png OUT.png - rewrites an 8-bit RGBA PNG (what
`rigkit render` writes) smaller for docs/img: opaque images become RGB, each
row gets the PNG filter with the smallest sum of absolute differences, and
zlib level 9 compresses. The pixels are unchanged (same RGB; alpha dropped
only when every pixel is opaque). Python's zlib only; written atomically."""
import os
import struct
import sys
import zlib


def read_rgba(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit('%s: not a PNG' % path)
    pos, idat, ihdr = 8, b'', None
    while pos + 12 <= len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', data[pos + 8:pos + 21])
        elif kind == b'IDAT':
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    if not ihdr or ihdr[2:] != (8, 6, 0, 0, 0):
        raise SystemExit('%s: expected 8-bit RGBA, not interlaced' % path)
    w, h = ihdr[0], ihdr[1]
    raw, stride = zlib.decompress(idat), w * 4
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows


def filtered(row, prev, bpp, f):
    out = bytearray(len(row))
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 0:
            v = row[i]
        elif f == 1:
            v = row[i] - a
        elif f == 2:
            v = row[i] - b
        elif f == 3:
            v = row[i] - (a + b) // 2
        else:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            v = row[i] - (a if pa <= pb and pa <= pc else b if pb <= pc else c)
        out[i] = v & 255
    return bytes(out)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    w, h, rows = read_rgba(argv[1])
    opaque = all(r[i] == 255 for r in rows for i in range(3, len(r), 4))
    bpp = 3 if opaque else 4
    if opaque:
        rows = [bytes(b for i in range(0, len(r), 4) for b in r[i:i + 3]) for r in rows]
    body, prev = bytearray(), bytes(w * bpp)
    for r in rows:
        candidates = [filtered(r, prev, bpp, f) for f in range(5)]
        f = min(range(5), key=lambda k: sum(x if x < 128 else 256 - x for x in candidates[k]))
        body += bytes([f]) + candidates[f]
        prev = r

    def chunk(kind, payload):
        return struct.pack('>I', len(payload)) + kind + payload + struct.pack('>I', zlib.crc32(kind + payload))
    png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2 if opaque else 6, 0, 0, 0)) +
           chunk(b'IDAT', zlib.compress(bytes(body), 9)) + chunk(b'IEND', b''))
    tmp = argv[2] + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(png)
    os.replace(tmp, argv[2])
    print('%s: %d -> %d bytes' % (argv[2], os.path.getsize(argv[1]), len(png)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
