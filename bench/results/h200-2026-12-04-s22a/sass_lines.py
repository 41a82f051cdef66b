# usage: sassagg.py sass_A.csv: ncu source-page CSV -> warp instructions per source line, top 30
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
f = None; agg = []; tot = 0
for r in rows:
    if len(r) >= 2 and r[0] == 'File Path': f = r[1].split('/')[-1]; continue
    if len(r) < 9 or r[0] in ('', 'Line No'): continue
    try: ie = int(r[7]); th = int(r[8])
    except ValueError: continue
    agg.append((ie, f, r[0], r[1][:90], th)); tot += ie
print('total warp instructions', tot)
for ie, f, l, s, th in sorted(agg, reverse=True)[:30]:
    print(f"{ie / tot * 100:5.1f}% {ie / 1.8147e9 * 32:6.2f} per combo-bar, {th / max(ie, 1):4.1f} threads  {f}:{l} {s}")
