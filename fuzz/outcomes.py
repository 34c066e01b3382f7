#!/usr/bin/env python3
"""Turns the file MQLCL_FUZZ_STATS=FILE writes (export, code, count per line) into the Markdown
table of docs/errors.md ("Found by fuzzing"). Replay a corpus with it:

  MQLCL_FUZZ_STATS=/tmp/outcomes.tsv build-fuzz/bin/mqlcl_fuzz_abi -runs=0 CORPUS_DIR
  fuzz/outcomes.py /tmp/outcomes.tsv
"""
import collections
import sys

NAMES = {0: "success", 4003: "4003", 5052: "5052", 5053: "5053", 5100: "5100", 5101: "5101",
         5102: "5102", 5103: "5103", 5104: "5104", 5105: "5105", 5106: "5106", 5107: "5107",
         5108: "5108", 5109: "5109", 5110: "5110", 5111: "5111", 5112: "5112", 5113: "5113",
         5114: "5114"}


def main(path):
    table = collections.defaultdict(collections.Counter)
    for line in open(path):
        export, code, count = line.rstrip("\n").split("\t")
        table[export][int(code)] += int(count)
    codes = sorted({code for counts in table.values() for code in counts})
    print("| Export | calls | " + " | ".join(NAMES.get(c, str(c)) for c in codes) + " |")
    print("|---|---:|" + "---:|" * len(codes))
    for export in sorted(table):
        counts = table[export]
        cells = [str(counts[c]) if counts[c] else "" for c in codes]
        print(f"| {export} | {sum(counts.values())} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
