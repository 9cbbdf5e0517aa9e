#!/usr/bin/env python3
"""Draws media/icon.png (the extension's marketplace icon, 256x256) with the standard library only.

A rounded square in blue to teal, a white ring (the score) and a white check mark (a test that passes).
Shapes are distance functions sampled 4x4 per pixel for smooth edges. Run: python3 scripts/make-icon.py
"""
import math
import os
import struct
import zlib

SIZE = 256
SS = 4  # samples per pixel per axis


def seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def rounded_rect_inside(x, y, size, radius):
    cx = min(max(x, radius), size - radius)
    cy = min(max(y, radius), size - radius)
    return math.hypot(x - cx, y - cy) <= radius


def sample(x, y):
    """RGBA of one sample point in [0, SIZE)."""
    if not rounded_rect_inside(x, y, SIZE, 48):
        return (0, 0, 0, 0)
    t = (x + y) / (2 * SIZE)
    top, bottom = (30, 99, 181), (18, 160, 150)
    bg = tuple(round(top[i] + (bottom[i] - top[i]) * t) for i in range(3))
    # The ring: a score gauge, open at the top right where the check mark's stroke leaves it.
    r = math.hypot(x - 128, y - 134)
    angle = math.degrees(math.atan2(y - 134, x - 128))
    if 76 <= r <= 92 and not (-75 <= angle <= -15):
        return (255, 255, 255, 255)
    # The check mark.
    d = min(seg_dist(x, y, 84, 132, 118, 168), seg_dist(x, y, 118, 168, 196, 66))
    if d <= 13:
        return (255, 255, 255, 255)
    return bg + (255,)


def render():
    rows = []
    for py in range(SIZE):
        row = bytearray([0])  # filter: none
        for px in range(SIZE):
            acc = [0, 0, 0, 0]
            for sy in range(SS):
                for sx in range(SS):
                    r, g, b, a = sample(px + (sx + 0.5) / SS, py + (sy + 0.5) / SS)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            n = SS * SS
            alpha = acc[3] / n
            if acc[3]:
                row += bytes([round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(alpha)])
            else:
                row += bytes([0, 0, 0, 0])
        rows.append(bytes(row))
    return b''.join(rows)


def png(width, height, raw):
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack('>IIBBBBB', width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')


if __name__ == '__main__':
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'media', 'icon.png')
    with open(out, 'wb') as f:
        f.write(png(SIZE, SIZE, render()))
    print(f'wrote {os.path.normpath(out)}')
