#!/usr/bin/env python3
"""The Markdown table of one `mqlcl-replay bench --output` file, as docs/performance.md shows it.

    tools/bench-table.py RESULTS.json [--anchor NAME]...

One row per product (our steps, the library's CLGemm, the anchors), one column per size:
GFLOPS and, for ours, the error (max |C - ref| / max |ref|); then one row per anchor named with
--anchor (default: cuBLAS FP32, else OpenBLAS) giving each verified product's speed over it.
Numbers may be JSON numbers or, in files written before the JSON library, strings.
"""
import argparse
import json


def number(value):
    return float(value) if value not in (None, "") else None


def truth(value):
    return value is True or value == "true"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--anchor", action="append", default=[])
    args = parser.parse_args()
    with open(args.results) as f:
        bench = json.load(f)
    sizes = [size["n"] for size in bench["sizes"]]
    rows = {}  # name -> {n: result}
    kinds = {}
    for size in bench["sizes"]:
        for result in size["results"]:
            rows.setdefault(result["name"], {})[size["n"]] = result
            kinds[result["name"]] = result["kind"]
    anchors = args.anchor or [
        name for name in rows if kinds[name] == "anchor" and name.startswith(("cuBLAS SGEMM", "OpenBLAS"))
    ][:1]

    def cell(result, ours):
        if not result or not truth(result.get("verified")) or number(result.get("gflops")) is None:
            return "—" if not result or not truth(result.get("available")) else "not verified"
        text = f"{number(result['gflops']):,.0f}".replace(",", " ")
        return f"{text} ({number(result['max_error_over_max_ref']):.1e})" if ours else text

    print("| GFLOPS (error) | " + " | ".join(str(n) for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    order = [k for k in ("step", "library", "anchor")]
    for kind in order:
        for name, by_size in rows.items():
            if kinds[name] == kind:
                label = f"`{name}`" if kind == "step" else name
                print(f"| {label} | " + " | ".join(cell(by_size.get(n), kind != "anchor") for n in sizes) + " |")
    for anchor in anchors:
        for name, by_size in rows.items():
            if kinds[name] == "anchor":
                continue
            ratios = []
            for n in sizes:
                ours, theirs = by_size.get(n), rows[anchor].get(n)
                if ours and theirs and truth(ours.get("verified")) and truth(theirs.get("verified")):
                    ratios.append(f"{number(ours['gflops']) / number(theirs['gflops']):.2f}×")
                else:
                    ratios.append("—")
            label = f"`{name}`" if kinds[name] == "step" else name
            print(f"| {label} ÷ {anchor} | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
