#!/usr/bin/env python3
"""GPU read benchmark: arrays read into GPU memory, cuzarr against tensorstore -> cupy.

Same datasets as the CPU benchmark (bench/zarr_benchmark.py generates them: a 1024^3 uint16 cube
stored uncompressed, with zstd, sharded with zstd, and a float32 climate field with blosc lz4 +
shuffle). For each dataset, in one run:

  tensorstore -> cupy   ts.open(...).read().result(), then cupy.asarray (host -> device copy)
  cuzarr -> device      `cuzarr bench read PATH --device cuda` (pinned staging, batched copies,
                        scatter kernel; codecs without a GPU implementation decode on the CPU)
  cuzarr -> host        `cuzarr bench read PATH --device cpu`, for reference

Each figure is the best of --repeat runs with the files in the page cache. The table gives GB/s of
decoded bytes and the ratio cuzarr -> device over tensorstore -> cupy (> 1: cuzarr faster).

    bench/gpu_read_benchmark.py --data bench-data --cuzarr build-gpu/cuzarr --markdown out.md
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zarr_benchmark  # noqa: E402  (dataset generation and helpers shared with the CPU benchmark)

TENSORSTORE_TO_CUPY = r"""
import json, sys, time
import cupy, tensorstore as ts
path, repeat = sys.argv[1], int(sys.argv[2])
store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}).result()
seconds = []
for _ in range(repeat):
    start = time.perf_counter()
    on_device = cupy.asarray(store.read().result())
    cupy.cuda.Device().synchronize()
    seconds.append(time.perf_counter() - start)
    nbytes = on_device.nbytes
    del on_device
print(json.dumps({"best_seconds": min(seconds), "decoded_bytes": int(nbytes)}))
"""


def run_json(cmd: list[str], timeout: float) -> dict:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return {"error": lines[-1][:160] if lines else f"exit status {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def gbps(cell: dict) -> float | None:
    if "error" in cell or not cell.get("best_seconds"):
        return None
    return cell["decoded_bytes"] / cell["best_seconds"] / 1e9


def cell_text(cell: dict) -> str:
    rate = gbps(cell)
    if rate is None:
        return f"error: {cell.get('error', '?')}"
    return f"{cell['best_seconds']:.3f} s ({rate:.2f} GB/s)"


def gpu_name() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        return out.splitlines()[0] if out else "unknown GPU"
    except (OSError, subprocess.SubprocessError):
        return "unknown GPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="bench-data", help="where the datasets are (generated when missing)")
    parser.add_argument("--scale", type=int, default=1024, help="cube edge (1024 = 2 GiB of uint16)")
    parser.add_argument("--cuzarr", default="build-gpu/cuzarr", help="the cuzarr executable")
    parser.add_argument("--datasets", default=",".join(zarr_benchmark.DATASETS))
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per cell (best reported)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per cell")
    parser.add_argument("--markdown", help="also write the table as markdown to this file")
    parser.add_argument("--stages", action="store_true",
                        help="also print where cuzarr's best read into device memory spent its time "
                             "(`cuzarr bench read --stages`)")
    parser.add_argument("--peer-python", default=sys.executable,
                        help="the python with tensorstore and cupy (zarr, for generation, may live elsewhere)")
    args = parser.parse_args()

    data = Path(args.data) / str(args.scale)
    rows = []
    stage_lines = []
    for dataset in args.datasets.split(","):
        path = data / dataset
        if not (path / "zarr.json").exists():
            print(f"generating {path} ...", flush=True)
            start = time.perf_counter()
            zarr_benchmark.generate(path, dataset, args.scale)
            print(f"  {time.perf_counter() - start:.1f} s", flush=True)
        zarr_benchmark.warm_page_cache(path)
        common = ["--json", "--repeat", str(args.repeat)]
        cells = {
            "tensorstore -> cupy": run_json(
                [args.peer_python, "-c", TENSORSTORE_TO_CUPY, str(path), str(args.repeat)],
                args.timeout),
            "cuzarr -> device": run_json(
                [args.cuzarr, "bench", "read", str(path), "--device", "cuda", *common,
                 *(["--stages"] if args.stages else [])], args.timeout),
            "cuzarr -> host": run_json(
                [args.cuzarr, "bench", "read", str(path), "--device", "cpu", *common], args.timeout),
        }
        ts_rate, cz_rate = gbps(cells["tensorstore -> cupy"]), gbps(cells["cuzarr -> device"])
        ratio = f"{cz_rate / ts_rate:.2f}x" if ts_rate and cz_rate else "-"
        size = zarr_benchmark.dataset_bytes(path) / 2**30
        stored = zarr_benchmark.stored_bytes(path) / 2**30
        rows.append((dataset, f"{size:.2f} GiB ({stored:.2f} stored)", *map(cell_text, cells.values()), ratio))
        device_cell = cells["cuzarr -> device"]
        if args.stages and "stages" in device_cell:
            best = device_cell["best_seconds"]
            stage_lines.append(f"{dataset}, cuzarr -> device, best run {best:.4f} s "
                               "(stages summed over threads):")
            for stage in device_cell["stages"]:
                stage_lines.append(f"  {stage['stage']:<36} {stage['seconds']:9.4f} s "
                                   f"{100 * stage['seconds'] / best:6.1f} %  {stage['sections']} sections")
        print(f"{dataset}: " + "; ".join(f"{k} {cell_text(v)}" for k, v in cells.items()) + f"; ratio {ratio}",
              flush=True)

    header = ["dataset", "size", "tensorstore -> cupy", "cuzarr -> device", "cuzarr -> host",
              "cuzarr -> device / tensorstore -> cupy"]
    lines = [
        f"GPU read benchmark, {datetime.date.today().isoformat()}, {platform.node()}: {gpu_name()}, "
        f"{zarr_benchmark.machine_text()}; scale {args.scale}, best of {args.repeat}, warm page cache",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if stage_lines:
        lines += ["", "```"] + stage_lines + ["```"]
    report = "\n".join(lines)
    print("\n" + report)
    if args.markdown:
        Path(args.markdown).write_text(report + "\n")


if __name__ == "__main__":
    main()
