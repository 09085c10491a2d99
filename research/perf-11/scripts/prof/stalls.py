# Summary of an Nsight Compute source page (`ncu -i REP --page source --csv --print-source sass`):
# warp stall samples by reason, the instructions with the most samples, and shared-memory
# wavefronts beyond the ideal per instruction.
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hi = [i for i, r in enumerate(rows) if r and r[0] == 'Address'][0]
h = rows[hi]; data = [r for r in rows[hi + 1:] if len(r) == len(h)]
col = {n: i for i, n in enumerate(h)}
def num(x):
    try: return float(x.replace(',', ''))
    except ValueError: return 0.0
stalls = [n for n in h if n.startswith('stall_') and 'Not Issued' not in n]
tot = {s: sum(num(r[col[s]]) for r in data) for s in stalls}
T = sum(tot.values())
print("warp stall samples: %d" % T)
for s, v in sorted(tot.items(), key=lambda kv: -kv[1]):
    if v: print("  %-24s %5.1f %%" % (s, 100 * v / T))
print("instructions with the most samples (address, SASS, samples, main reason):")
for r in sorted(data, key=lambda r: -num(r[col['Warp Stall Sampling (All Samples)']]))[:15]:
    main = max(stalls, key=lambda s: num(r[col[s]]))
    print("  %s  %-55s %6d  %s" % (r[col['Address']][-5:], r[col['Source']].strip()[:55],
          num(r[col['Warp Stall Sampling (All Samples)']]), main))
ex = [r for r in data if num(r[col['L1 Wavefronts Shared Excessive']]) > 0]
print("shared wavefronts beyond the ideal:")
for r in sorted(ex, key=lambda r: -num(r[col['L1 Wavefronts Shared Excessive']])):
    print("  %-55s executed %d, wavefronts %d, ideal %d" % (r[col['Source']].strip()[:55],
          num(r[col['Instructions Executed']]), num(r[col['L1 Wavefronts Shared']]),
          num(r[col['L1 Wavefronts Shared Ideal']])))
if not ex: print("  none")
