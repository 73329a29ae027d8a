#!/usr/bin/env python3
"""A tiny independent PNG reader for the render tests (8-bit RGB/RGBA, non-interlaced).

  pngtool.py stats A.png          colors and the share of the most common one
  pngtool.py legs A.png B.png     CesiumMan check: the figure's rows (not background in A or
                                  B); more than 100 pixels differ in its lower 35% (the legs)
  pngtool.py same A.png B.png T   no pixel differs by more than T in any channel
  pngtool.py close A.png B.png T P  at most P percent of the pixels differ by more than T
                                  (a golden-image check that allows for font rasterizers)
  pngtool.py pixel A.png X Y      the pixel's R G B
  pngtool.py fill A.png           the share of rows and columns holding something other
                                  than the top-left (background) color, as "ROWS COLS" in %
"""
import struct
import sys
import zlib


def read_png(path):
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n', path + ': not a PNG'
    p, idat = 8, b''
    w = h = bpp = 0
    while p < len(d):
        n, t = struct.unpack('>I4s', d[p:p + 8])
        body = d[p + 8:p + 8 + n]
        if t == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unsupported PNG'
            bpp = 4 if ctype == 6 else 3
        elif t == b'IDAT':
            idat += body
        p += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def stats(path):
    w, h, rows = read_png(path)
    counts = {}
    for r in rows:
        for px in r:
            counts[px] = counts.get(px, 0) + 1
    top = max(counts.values())
    print('%s %dx%d: %d colors, most common covers %.1f%%' % (path, w, h, len(counts), 100.0 * top / (w * h)))


def legs(a_path, b_path):
    w, h, a = read_png(a_path)
    w2, h2, b = read_png(b_path)
    assert (w, h) == (w2, h2), 'sizes differ'
    bg = a[0][0]
    fg_rows = [y for y in range(h) if any(a[y][x] != bg or b[y][x] != bg for x in range(w))]
    assert fg_rows, 'no figure in either image'
    top, bottom = fg_rows[0], fg_rows[-1]
    legs_from = bottom - int(0.35 * (bottom - top))
    legs_diff = sum(1 for y in range(legs_from, bottom + 1) for x in range(w) if a[y][x] != b[y][x])
    print('figure rows %d..%d: %d pixels differ in the legs (rows %d..)' % (top, bottom, legs_diff, legs_from))
    sys.exit(0 if legs_diff > 100 else 1)


def same(a_path, b_path, tolerance):
    w, h, a = read_png(a_path)
    w2, h2, b = read_png(b_path)
    assert (w, h) == (w2, h2), 'sizes differ'
    off = sum(1 for y in range(h) for x in range(w)
              if max(abs(p - q) for p, q in zip(a[y][x], b[y][x])) > tolerance)
    print('%d pixels differ by more than %d' % (off, tolerance))
    sys.exit(0 if off == 0 else 1)


def close(a_path, b_path, tolerance, percent):
    w, h, a = read_png(a_path)
    w2, h2, b = read_png(b_path)
    if (w, h) != (w2, h2):
        print('sizes differ: %dx%d and %dx%d' % (w, h, w2, h2))
        sys.exit(1)
    off = sum(1 for y in range(h) for x in range(w)
              if max(abs(p - q) for p, q in zip(a[y][x], b[y][x])) > tolerance)
    share = 100.0 * off / (w * h)
    print('%s: %d pixels (%.2f%%) differ by more than %d' % (a_path, off, share, tolerance))
    sys.exit(0 if share <= percent else 1)


def fill(path):
    w, h, a = read_png(path)
    bg = a[0][0]
    rows = [y for y in range(h) if any(a[y][x] != bg for x in range(w))]
    cols = [x for x in range(w) if any(a[y][x] != bg for y in range(h))]
    r = 100.0 * (rows[-1] - rows[0] + 1) / h if rows else 0.0
    c = 100.0 * (cols[-1] - cols[0] + 1) / w if cols else 0.0
    print('%.1f %.1f' % (r, c))


if __name__ == '__main__':
    if sys.argv[1] == 'stats':
        stats(sys.argv[2])
    elif sys.argv[1] == 'legs':
        legs(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == 'close':
        close(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    elif sys.argv[1] == 'pixel':
        w, h, rows = read_png(sys.argv[2])
        print('%d %d %d' % rows[int(sys.argv[4])][int(sys.argv[3])])
    elif sys.argv[1] == 'fill':
        fill(sys.argv[2])
    elif sys.argv[1] == 'same':
        same(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit('usage: pngtool.py stats A.png | legs A.png B.png | same A.png B.png T')
