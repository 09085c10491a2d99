# A numpy model of the unit (inputs read by truncation to TF32, each mma's sum truncated to
# FP32, eight products per mma) running lesson 11's split with big rounded to nearest, cut,
# or cut for A and rounded for B; the worst ratio of an element's error to the per-element
# allowance every lesson grades with (max(K, 4)·u·Σ|a·b|·1.05, u = 2^-24), over three draws of
# 256×256 outputs with inputs uniform in [-1, 1). Run with /usr/bin/python3 (numpy).
import numpy as np

def tf32_cut(x):
    return (x.view(np.uint32) & np.uint32(0xffffe000)).view(np.float32)

def tf32_round(x):
    return ((x.view(np.uint32) + np.uint32(0x1000)) & np.uint32(0xffffe000)).view(np.float32)

def rtz32(d):
    f = d.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(d)
    f[over] = np.nextafter(f[over], np.float32(0))
    return f

def unit(a, b, c):
    return rtz32(c.astype(np.float64) + tf32_cut(a).astype(np.float64) @ tf32_cut(b).astype(np.float64))

def split(A, B, big_a, big_b):
    M, K = A.shape
    acc = np.zeros((M, B.shape[1]), np.float32)
    for k0 in range(0, K, 8):
        a, b = A[:, k0:k0 + 8], B[k0:k0 + 8]
        ab, bb = big_a(a), big_b(b)
        asm, bs = (a - ab).astype(np.float32), (b - bb).astype(np.float32)
        d = unit(ab, bs, np.zeros_like(acc))
        d = unit(asm, bb, d)
        d = unit(ab, bb, d)
        acc = (acc + d).astype(np.float32)
    return acc

rng = np.random.default_rng(1)
u = 2.0 ** -24
ways = {"rounded": (tf32_round, tf32_round), "cut": (tf32_cut, tf32_cut),
        "A cut, B rounded": (tf32_cut, tf32_round)}
for K in (1, 2, 3, 5, 8, 9, 13, 16, 17, 24, 35):
    line = []
    for name, (fa, fb) in ways.items():
        worst = 0.0
        for _ in range(3):
            A = rng.uniform(-1, 1, (256, K)).astype(np.float32)
            B = rng.uniform(-1, 1, (K, 256)).astype(np.float32)
            kp = (K + 7) // 8 * 8
            Ap = np.zeros((256, kp), np.float32); Ap[:, :K] = A
            Bp = np.zeros((kp, 256), np.float32); Bp[:K] = B
            C = split(Ap, Bp, fa, fb)
            exact = A.astype(np.float64) @ B.astype(np.float64)
            scale = np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64))
            allowed = max(K, 4) * u * scale * 1.05 + np.finfo(np.float32).tiny
            worst = max(worst, (np.abs(C - exact) / allowed).max())
        line.append(f"{name} {worst:.2f}")
    print(f"K = {K:3d}: " + ", ".join(line))
