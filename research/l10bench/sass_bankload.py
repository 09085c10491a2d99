#!/usr/bin/env python3
"""Register-bank reads of the FFMAs in the largest loop of a SASS listing file: reads per bank
(register number mod 2) after the reuse cache, and the sum over FFMAs of the larger of the two.

    python3 sass_bankload.py x.sass
"""
import re,sys,collections
txt=open(sys.argv[1]).read()
loops=[(int(m.group(3),16),int(m.group(1),16)) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?BRA\s+(0x[0-9a-f]+)",txt) if int(m.group(3),16)<int(m.group(1),16)]
lo,hi=max(loops,key=lambda l:l[1]-l[0])
prev=None; b=[0,0]; n=0; pairs=0; triples=0
for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s+([^;]*);",txt):
    a=int(m.group(1),16)
    if not lo<=a<=hi: continue
    op,args=m.group(3),m.group(4)
    if not op.startswith("FFMA"): prev=None; continue
    n+=1
    srcs=[]
    for o in [x.strip() for x in args.split(",")][1:4]:
        r=re.match(r"-?R(\d+)(\.reuse)?$",o); srcs.append((int(r.group(1)),bool(r.group(2))) if r else (None,False))
    f=[reg for s,(reg,_) in enumerate(srcs) if reg is not None and not (prev and prev[s][0]==reg and prev[s][1])]
    c=collections.Counter(r%2 for r in f)
    b[0]+=c[0]; b[1]+=c[1]
    # cycles if each bank serves one read per cycle for this instruction alone:
    pairs+=max(c.values()) if c else 0
    prev=srcs
print(sys.argv[1], "FFMA",n,"bank reads",b,"sum of per-instruction max-bank reads",pairs)
