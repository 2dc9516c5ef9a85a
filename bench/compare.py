#!/usr/bin/env python3
"""Ratios of two q8ta_bench runs of the same cases on one device: for each
kernel, the geometric mean, the median, the lowest and the highest of
median(B) / median(A) over the cases both ran, with the count.

    python3 bench/compare.py A.json B.json [A2.json B2.json ...]

Pairs of files are read in order (A, B, A, B, ...): runs alternated in one
session, so the machine's drift shows as the spread between pairs.
`copy` (vkCmdCopyBuffer) runs no shader of ours: its ratio is the noise.

    python3 bench/compare.py --reduce IN.json OUT.json [BUILD]

keeps of a run what the comparison reads (the stamp and, per record, the
kernel, case and times), for a result file a fifth the size; BUILD, when
given, says how the program was built where the revision does not.
"""
import json
import math
import sys
from collections import defaultdict


def medians(path):
    d = json.load(open(path))
    out = {}
    for r in d["records"]:
        key = (r["kernel"], tuple(r["shape"]), r["in_layout"], r["out_layout"], r["quant"])
        out[key] = r["median_us"]
    return d, out


KEPT = ("kernel", "shape", "in_layout", "out_layout", "quant", "median_us", "p10_us", "p90_us")


def reduce(src, dst, build=None):
    d = json.load(open(src))
    d["records"] = [{k: r[k] for k in KEPT if k in r} for r in d["records"]]
    d["reduced"] = "records keep " + ", ".join(KEPT) + " (bench/compare.py --reduce)"
    if build:
        d["build"] = build
    with open(dst, "w") as f:
        f.write(json.dumps({k: v for k, v in d.items() if k != "records"}, indent=1)[:-2])
        f.write(',\n "records": [\n')
        f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in d["records"]))
        f.write("\n ]\n}\n")


def main(paths):
    if paths[:1] == ["--reduce"] and len(paths) in (3, 4):
        return reduce(*paths[1:])
    if len(paths) < 2 or len(paths) % 2:
        sys.exit(__doc__)
    ratios = defaultdict(list)
    for a_path, b_path in zip(paths[0::2], paths[1::2]):
        a_doc, a = medians(a_path)
        b_doc, b = medians(b_path)
        if a_doc.get("device") != b_doc.get("device"):
            sys.exit(f"{a_path} and {b_path} ran on different devices")
        for key, t in a.items():
            if key in b and t > 0:
                ratios[key[0]].append(b[key] / t)
    print(f"device: {a_doc.get('device')} ({a_doc.get('driver')})")
    for name, doc in (("A", a_doc), ("B", b_doc)):
        print(f"{name}: {doc.get('revision')} {doc.get('build', '')}".rstrip())
    print(f"{'kernel':24} {'cases':>5} {'geomean B/A':>12} {'median':>7} {'min':>7} {'max':>7}")
    for kernel in sorted(ratios):
        r = ratios[kernel]
        g = math.exp(sum(math.log(x) for x in r) / len(r))
        m = sorted(r)[len(r) // 2]
        print(f"{kernel:24} {len(r):5} {g:12.3f} {m:7.3f} {min(r):7.3f} {max(r):7.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
