#!/usr/bin/env python3
"""Tries models of the tensor cores' m16n8k8 TF32 sum against the device's D (unit-bits's
dump): inputs cut to TF32; the nine terms (C and eight exact products) aligned to the largest
exponent among them, each cut to F bits below it (toward zero, or toward -inf), summed
exactly, the sum then cut (toward zero) or rounded to FP32.

    python3 fit.py DUMP_DIR
"""
import math
import sys
from fractions import Fraction

import numpy as np


def load(path):
    v = np.fromfile(path, dtype="<f4")
    n = v.size // (128 + 64 + 128 + 128)
    a, b, c, d = np.split(v, [128 * n, 192 * n, 320 * n])
    return n, a.reshape(n, 16, 8), b.reshape(n, 8, 8), c.reshape(n, 16, 8), d.reshape(n, 16, 8)


def cut(x):
    return np.frombuffer((np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).tobytes(), np.float32)


def to_f32_rz(q):
    """Fraction to the float32 toward zero."""
    if q == 0:
        return 0.0
    f = np.float32(float(q))  # nearest (double then float: fine for these magnitudes)
    if abs(Fraction(float(f))) > abs(q):
        f = np.nextafter(f, np.float32(0))
    return float(f)


def to_f32_rn(q):
    return float(np.float32(float(q)))


def model(terms, F, mode, final, with_c=True):
    nz = [t for t in (terms if with_c else terms[1:]) if t != 0]
    if not nz:
        s = sum(terms, Fraction(0))
        return final(s)
    e = max(math.frexp(float(t))[1] for t in nz)  # |t| < 2^e
    q = Fraction(1, 1) * Fraction(2) ** (e - F)
    out = Fraction(0)
    for t in terms:
        r = t / q
        if mode == "rz":
            k = math.trunc(r)
        else:
            k = math.floor(r)
        out += k * q
    return final(out)


def main():
    folder = sys.argv[1]
    sets = [load(f"{folder}/set{i}.f32") for i in range(5)]
    configs = []
    for F in range(23, 30):
        for mode in ("rz", "floor"):
            for fname, final in (("rz", to_f32_rz), ("rn", to_f32_rn)):
                for with_c in (True, False):
                    configs.append((F, mode, fname, final, with_c))
    for si, (n, a, b, c, d) in enumerate(sets):
        a, b = cut(a.ravel()).reshape(n, 16, 8), cut(b.ravel()).reshape(n, 8, 8)
        tiles = min(n, 48)
        res = []
        for F, mode, fname, final, with_c in configs:
            same = 0
            total = 0
            for t in range(tiles):
                for i in range(16):
                    for j in range(8):
                        terms = [Fraction(float(c[t, i, j]))] + [
                            Fraction(float(a[t, i, k])) * Fraction(float(b[t, k, j])) for k in range(8)]
                        got = model(terms, F, mode, final, with_c)
                        same += got == float(d[t, i, j])
                        total += 1
            res.append((same, F, mode, fname, with_c))
        res.sort(reverse=True)
        print(f"set {si}: best of {len(configs)} models over {total} elements:")
        for same, F, mode, fname, with_c in res[:4]:
            print(f"  {same}/{total}  F={F} terms cut {mode}, sum to FP32 {fname}, align {'with' if with_c else 'without'} C")


main()
