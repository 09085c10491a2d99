# How much more accurate than plain FP32 is lesson 11's split, summed outside the unit, and
# FP32 summed in other orders? ||C - exact|| / ||exact||, each element in units of its scale
# sum|a*b| (the grader's measure), as a fraction of the sequential FP32 loop's (the grader's
# e32: one float multiply, one float add, along K).
import numpy as np
rng=np.random.default_rng(5)
def tf32_rna(x):
    b=x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b+0x1000)&0xFFFFE000).astype(np.uint32).view(np.float32)
def tf32_cut(x):
    return (x.astype(np.float32).view(np.uint32)&np.uint32(0xFFFFE000)).view(np.float32)
def trunc32(x):
    f=x.astype(np.float32); over=np.abs(f.astype(np.float64))>np.abs(x)
    f[over]=np.nextafter(f[over],np.float32(0)); return f
for M,N,K in [(48,40,1024),(40,24,4096),(64,64,2048),(48,40,4096),(32,32,8192)]:
    A=rng.uniform(-1,1,(M,K)).astype(np.float32); B=rng.uniform(-1,1,(K,N)).astype(np.float32)
    A64=A.astype(np.float64); B64=B.astype(np.float64)
    ex=A64@B64; sc=np.abs(A64)@np.abs(B64)
    seq=np.zeros((M,N),np.float32); fma=np.zeros((M,N),np.float32)
    blk=np.zeros((M,N),np.float32); spl=np.zeros((M,N),np.float32)
    for k in range(K):
        seq=(seq+np.outer(A[:,k],B[k,:]).astype(np.float32)).astype(np.float32)
        fma=(fma.astype(np.float64)+np.outer(A64[:,k],B64[k,:])).astype(np.float32)
    Ab=tf32_rna(A); As=tf32_cut(A-Ab); Bb=tf32_rna(B); Bs=tf32_cut(B-Bb)
    for k0 in range(0,K,8):
        d=np.zeros((M,N),np.float32)
        for k in range(k0,k0+8):
            d=(d.astype(np.float64)+np.outer(A64[:,k],B64[k,:])).astype(np.float32)
        blk=(blk+d).astype(np.float32)
        sl=slice(k0,k0+8); t=np.zeros((M,N),np.float64)
        for a,b in [(Ab,Bs),(As,Bb),(Ab,Bb)]:
            t=trunc32(t+a[:,sl].astype(np.float64)@b[sl,:].astype(np.float64)).astype(np.float64)
        spl=(spl+t.astype(np.float32)).astype(np.float32)
    w=1/sc
    e=lambda c: np.sqrt((((c-ex)*w)**2).sum())/np.sqrt(((ex*w)**2).sum())
    s=e(seq)
    print(f"{M}x{N}x{K}: e32 {s:.2e}; fma chain {e(fma)/s:.2f}, fma blocked by 8 {e(blk)/s:.2f}, split summed outside {e(spl)/s:.2f} (x e32)", flush=True)
