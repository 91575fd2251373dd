#!/bin/bash
# On the device: event medians and ncu counters (no ncu cache control) per flush method.
cd "$(dirname "$0")"
for m in 0 1 2 3 4 5 6 7 8; do ./flush_probe $m 31; done 2>&1 | tee $OUT/events.txt
for m in 0 1 2 3 4 5 6 7 8; do
  ncu --cache-control none --clock-control none -k regex:'k_(copy|read)' --csv --metrics dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum ./flush_probe $m 3 > $OUT/ncu_m$m.csv 2>&1
done
ncu --clock-control none -k regex:'k_(copy|read)' --csv --metrics dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum ./flush_probe 0 3 > $OUT/ncu_ref.csv 2>&1
cd $OUT && tar czf ncu.tgz ncu_*.csv && rm ncu_*.csv
python3 - <<'PY'
import csv,glob,tarfile,io,collections,os
t=tarfile.open(os.environ['OUT']+'/ncu.tgz')
for m in t.getmembers():
    txt=t.extractfile(m).read().decode()
    lines=[l for l in txt.splitlines() if l.startswith('"')]
    rows=list(csv.DictReader(io.StringIO("\n".join(lines))))
    agg=collections.defaultdict(list)
    for r in rows:
        name=r['Kernel Name']; 
        if '<1>' not in name and '(1)' not in name and '1>' not in name: continue
        agg[(name.split('(')[0][:20],r['Metric Name'])].append(r['Metric Value'])
    print(m.name, {k:v for k,v in agg.items()})
PY
