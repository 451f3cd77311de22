#!/usr/bin/env python3
"""CPU read/write benchmark: cuzarr against tensorstore, zarr-python 3 and zarr-python + zarrs.

The workload follows the public zarr_benchmarks suite: a cube of uint16 "imaging" data (a smooth
field plus noise) with 256^3 chunks stored (a) uncompressed, (b) zstd level 0, (c) as 256^3 shards
of 64^3 inner chunks with zstd, plus (d) a float32 climate-like field with blosc lz4 + shuffle.
`--scale EDGE` shrinks the cube (chunk, shard and inner chunk edges shrink with it).

Every (implementation, operation, dataset) cell runs in its own process, so the peak resident
memory (ru_maxrss of that child, from wait4) is measured per cell. The files of a dataset are read
once before each cell, so the numbers are warm page-cache numbers (dropping the cache needs root).
cuzarr runs through `cuzarr bench`; the others through this script's `worker` mode.

    bench/zarr_benchmark.py --scale 512 --cuzarr build/cuzarr --markdown bench/results-512.md
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

IMPLEMENTATIONS = ["cuzarr", "tensorstore", "zarr", "zarrs"]
CONCURRENCIES = [1, 2, 4, 8]
DATASETS = ["raw", "zstd", "sharded_zstd", "float32_blosc_lz4"]


def operations_for(dataset: str) -> list[str]:
    ops = ["read_all"] + [f"read_chunks_c{c}" for c in CONCURRENCIES]
    if dataset.startswith("sharded"):
        ops.append("read_inner_chunks")
    return ops + ["roundtrip", "write"]


# ---------------------------------------------------------------------------------------------
# Data generation (zarr-python writes the inputs, so every reader sees standard arrays).


def geometry(edge: int, dataset: str) -> dict:
    chunk = edge // 4
    if dataset == "float32_blosc_lz4":  # (time, lat, lon): same bytes as the uint16 cube
        return {"shape": (edge // 2, edge, edge), "chunks": (chunk // 2, chunk, chunk)}
    g = {"shape": (edge,) * 3, "chunks": (chunk,) * 3}
    if dataset == "sharded_zstd":
        g["inner"] = (edge // 16,) * 3
    return g


def smooth_uint16(z0: int, z1: int, y0: int, y1: int, nx: int, rng) -> "np.ndarray":
    import numpy as np

    z = np.arange(z0, z1, dtype=np.float32)[:, None, None]
    y = np.arange(y0, y1, dtype=np.float32)[None, :, None]
    x = np.arange(nx, dtype=np.float32)[None, None, :]
    field = 20000 + 8000 * np.sin(x / 40) * np.cos(y / 55) * np.cos(z / 70) + 3000 * np.sin(
        (x + y + z) / 200
    )
    field += rng.normal(0.0, 30.0, size=field.shape).astype(np.float32)
    return np.clip(field, 0, 65535).astype(np.uint16)


def climate_float32(t0: int, t1: int, y0: int, y1: int, nx: int, ny: int, rng) -> "np.ndarray":
    import numpy as np

    t = np.arange(t0, t1, dtype=np.float32)[:, None, None]
    lat = (np.arange(y0, y1, dtype=np.float32)[None, :, None] / ny - 0.5) * np.pi
    lon = np.arange(nx, dtype=np.float32)[None, None, :] / nx * 2 * np.pi
    field = 250 + 40 * np.cos(lat) + 8 * np.sin(lon * 3 + t / 10) * np.cos(lat * 2)
    field += rng.normal(0.0, 0.3, size=field.shape).astype(np.float32)
    return np.round(field, 2).astype(np.float32)  # stored to 0.01 K, as reanalysis data often is


def generate(path: Path, dataset: str, edge: int) -> None:
    import numpy as np
    import zarr
    import zarr.codecs as zc

    g = geometry(edge, dataset)
    kwargs: dict = {"shape": g["shape"], "fill_value": 0, "overwrite": True}
    if dataset == "raw":
        kwargs.update(dtype="uint16", chunks=g["chunks"], compressors=None)
    elif dataset == "zstd":
        kwargs.update(dtype="uint16", chunks=g["chunks"], compressors=[zc.ZstdCodec(level=0)])
    elif dataset == "sharded_zstd":
        kwargs.update(dtype="uint16", chunks=g["inner"], shards=g["chunks"],
                      compressors=[zc.ZstdCodec(level=0)])
    else:
        kwargs.update(dtype="float32", chunks=g["chunks"], compressors=[
            zc.BloscCodec(cname="lz4", clevel=5, shuffle=zc.BloscShuffle.shuffle, typesize=4)])
    array = zarr.create_array(store=str(path), zarr_format=3, **kwargs)
    rng = np.random.default_rng(42)
    shape, chunks = g["shape"], g["chunks"]
    for z0 in range(0, shape[0], chunks[0]):
        for y0 in range(0, shape[1], chunks[1]):
            z1, y1 = min(z0 + chunks[0], shape[0]), min(y0 + chunks[1], shape[1])
            if dataset == "float32_blosc_lz4":
                block = climate_float32(z0, z1, y0, y1, shape[2], shape[1], rng)
            else:
                block = smooth_uint16(z0, z1, y0, y1, shape[2], rng)
            array[z0:z1, y0:y1, :] = block


def dataset_bytes(path: Path) -> int:
    meta = json.loads((path / "zarr.json").read_text())
    n = 1
    for s in meta["shape"]:
        n *= s
    return n * {"uint16": 2, "float32": 4}[meta["data_type"]]


def stored_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def warm_page_cache(path: Path) -> None:
    """Reads every file once, so the timed runs find the data in the page cache."""
    for f in path.rglob("*"):
        if f.is_file():
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass


def can_drop_page_cache() -> bool:
    return os.geteuid() == 0 and os.access("/proc/sys/vm/drop_caches", os.W_OK)


def copy_metadata(src: Path, dst: Path) -> None:
    """An empty array at `dst` with the metadata of `src` (its zarr.json), for writes."""
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    shutil.copy(src / "zarr.json", dst / "zarr.json")


# ---------------------------------------------------------------------------------------------
# Workers: one implementation, one operation, timed inside the process; prints JSON.


def chunk_slices(shape, chunks):
    import itertools

    ranges = [range(0, s, c) for s, c in zip(shape, chunks)]
    for origin in itertools.product(*ranges):
        yield tuple(slice(o, min(o + c, s)) for o, c, s in zip(origin, chunks, shape))


def inner_chunk_shape(path: Path):
    meta = json.loads((path / "zarr.json").read_text())
    for codec in meta["codecs"]:
        if codec["name"] == "sharding_indexed":
            return tuple(codec["configuration"]["chunk_shape"])
    raise SystemExit(f"{path} is not sharded")


def outer_chunk_shape(path: Path):
    meta = json.loads((path / "zarr.json").read_text())
    return tuple(meta["chunk_grid"]["configuration"]["chunk_shape"])


class ZarrPython:
    def __init__(self, zarrs: bool):
        import zarr

        if zarrs:
            import zarrs  # noqa: F401  (fails early when not installed)

            zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
        self.zarr = zarr

    def open(self, path: Path, mode="r"):
        return self.zarr.open_array(str(path), mode=mode)

    def read_all(self, path):
        return self.open(path)[...]

    def read_selections(self, path, selections, concurrency):
        import zarr.api.asynchronous as za

        async def run():
            array = await za.open_array(store=str(path), mode="r")
            semaphore = asyncio.Semaphore(concurrency)

            async def one(sel):
                async with semaphore:
                    return (await array.getitem(sel)).nbytes

            return sum(await asyncio.gather(*(one(s) for s in selections)))

        if concurrency == 1:
            array = self.open(path)
            return sum(array[s].nbytes for s in selections)
        return asyncio.run(run())

    def write(self, path, data):
        self.open(path, mode="r+")[...] = data


class TensorStore:
    def __init__(self):
        import tensorstore as ts

        self.ts = ts

    def open(self, path: Path, write=False):
        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}
        return self.ts.open(spec, read=True, write=write).result()

    def read_all(self, path):
        return self.open(path).read().result()

    def read_selections(self, path, selections, concurrency):
        array = self.open(path)
        pending, total = [], 0
        for sel in selections:
            if len(pending) == concurrency:
                total += pending.pop(0).result().nbytes
            pending.append(array[sel].read())
        return total + sum(f.result().nbytes for f in pending)

    def write(self, path, data):
        self.open(path, write=True).write(data).result()


def worker(args) -> None:
    impl = ZarrPython(zarrs=args.impl == "zarrs") if args.impl in ("zarr", "zarrs") else TensorStore()
    path = Path(args.path)
    seconds, nbytes = [], 0
    data = impl.read_all(path) if args.op == "write" else None
    for _ in range(args.repeat):
        if args.op in ("write", "roundtrip"):
            copy_metadata(path, Path(args.dst))
        start = time.perf_counter()
        if args.op == "read_all":
            nbytes = impl.read_all(path).nbytes
        elif args.op.startswith("read_chunks_c") or args.op == "read_inner_chunks":
            meta = json.loads((path / "zarr.json").read_text())
            chunks = inner_chunk_shape(path) if args.op == "read_inner_chunks" else outer_chunk_shape(path)
            concurrency = 1 if args.op == "read_inner_chunks" else int(args.op.removeprefix("read_chunks_c"))
            nbytes = impl.read_selections(path, list(chunk_slices(meta["shape"], chunks)), concurrency)
        elif args.op == "roundtrip":
            data = impl.read_all(path)
            impl.write(Path(args.dst), data)
            nbytes = data.nbytes
        elif args.op == "write":
            impl.write(Path(args.dst), data)
            nbytes = data.nbytes
        seconds.append(time.perf_counter() - start)
        if args.op == "roundtrip":
            data = None
    print(json.dumps({"seconds": seconds, "decoded_bytes": int(nbytes)}))


def cuzarr_command(cuzarr: str, op: str, path: Path, dst: Path, repeat: int, threads: int) -> list[str]:
    common = ["--json", "--repeat", str(repeat), "--threads", str(threads)]
    if op == "read_all":
        return [cuzarr, "bench", "read", str(path), *common]
    if op.startswith("read_chunks_c"):
        c = op.removeprefix("read_chunks_c")
        return [cuzarr, "bench", "read", str(path), "--chunk-by-chunk", "--concurrency", c, *common]
    if op == "read_inner_chunks":
        return [cuzarr, "bench", "read", str(path), "--chunk-by-chunk", "--inner-chunks", *common]
    verb = "roundtrip" if op == "roundtrip" else "write"
    return [cuzarr, "bench", verb, str(path), str(dst), "--overwrite", *common]


TIME = "/usr/bin/time"
RSS_MARK = "zarr_benchmark_maxrss_kib="


def run_cell(cmd: list[str], timeout: float) -> dict:
    """Runs one cell in a child process; adds its peak RSS (ru_maxrss, KiB on Linux). Linux carries
    the parent's peak RSS across fork + exec into the child's ru_maxrss, so the cell runs under
    /usr/bin/time (a small parent) when there is one; otherwise wait4's figure for the direct
    child is used, and this process stays small (it never imports numpy, zarr or tensorstore:
    generation and the availability checks run in children)."""
    timed = os.access(TIME, os.X_OK)
    if timed:
        cmd = [TIME, "-f", RSS_MARK + "%M", *cmd]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return {"error": f"timed out after {timeout:.0f} s"}
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = proc.stdout.read(), proc.stderr.read()
    if proc.returncode != 0:
        lines = [l for l in (err or out).strip().splitlines() if not l.startswith(RSS_MARK)]
        lines = [l for l in lines if not l.startswith("Command exited with non-zero status")]
        return {"error": lines[-1][:160] if lines else f"exit status {proc.returncode}"}
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_rss_bytes"] = usage.ru_maxrss * 1024
    for line in err.splitlines():
        if timed and line.startswith(RSS_MARK):
            result["peak_rss_bytes"] = int(line.removeprefix(RSS_MARK)) * 1024
    return result


def available(impl: str) -> str | None:
    """None when the implementation can run, else why not (checked in a child process: this
    process stays small, see run_cell)."""
    modules = {"tensorstore": "tensorstore", "zarr": "zarr", "zarrs": "zarr, zarrs"}[impl]
    check = subprocess.run([sys.executable, "-c", f"import {modules}"], capture_output=True, text=True)
    if check.returncode != 0:
        lines = check.stderr.strip().splitlines()
        return lines[-1] if lines else f"import {modules} failed"
    return None


# ---------------------------------------------------------------------------------------------
# Report


def fmt_seconds(cell: dict | None) -> str:
    if not cell:
        return "-"
    if "error" in cell:
        return "error"
    return f"{min(cell['seconds']):.3f}"


def fmt_rss(cell: dict | None) -> str:
    if not cell or "error" in cell:
        return "-"
    return f"{cell['peak_rss_bytes'] / 2**20:.0f}"


def markdown_table(results: dict, impls: list[str], datasets: list[str]) -> str:
    peers = [i for i in impls if i != "cuzarr"]
    header = ["dataset", "operation"] + [f"{i} s" for i in impls]
    header += [f"{p}/cuzarr" for p in peers if "cuzarr" in impls]
    header += [f"{i} RSS MiB" for i in impls]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for ds in datasets:
        for op in operations_for(ds):
            cells = {i: results.get((ds, op, i)) for i in impls}
            if not any(cells.values()):
                continue  # not run (--operations)
            row = [ds, op] + [fmt_seconds(cells[i]) for i in impls]
            if "cuzarr" in impls:
                ours = cells["cuzarr"]
                for p in peers:
                    theirs = cells[p]
                    ok = ours and theirs and "error" not in ours and "error" not in theirs
                    row.append(f"{min(theirs['seconds']) / min(ours['seconds']):.2f}" if ok else "-")
            row += [fmt_rss(cells[i]) for i in impls]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def machine_text() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} logical CPUs, {mem:.0f} GiB RAM, {platform.platform()}"


def write_json(path: str, results: dict) -> None:
    Path(path).write_text(json.dumps(
        [{"dataset": d, "operation": o, "implementation": i, **c} for (d, o, i), c in results.items()],
        indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="bench-data", help="where the datasets are generated (reused)")
    parser.add_argument("--scale", type=int, default=1024, help="cube edge (1024 = 2 GiB of uint16)")
    parser.add_argument("--cuzarr", default="build/cuzarr", help="the cuzarr executable")
    parser.add_argument("--implementations", default=",".join(IMPLEMENTATIONS))
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--operations", default="", help="comma list; default all")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per cell (best reported)")
    parser.add_argument("--threads", type=int, default=0, help="cuzarr threads (0 = all cores)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per cell")
    parser.add_argument("--markdown", help="also write the report as markdown to this file")
    parser.add_argument("--json", help="also write the raw results as JSON to this file")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the datasets")
    args = parser.parse_args()
    if args.scale % 16:
        parser.error("--scale must be a multiple of 16")

    data_root = Path(args.data) / f"edge{args.scale}"
    impls = [i for i in args.implementations.split(",") if i]
    datasets = [d for d in args.datasets.split(",") if d]
    wanted_ops = set(o for o in args.operations.split(",") if o)
    skipped = {}
    for impl in impls:
        why = None if impl == "cuzarr" else available(impl)
        if impl == "cuzarr" and not Path(args.cuzarr).exists():
            why = f"{args.cuzarr} does not exist (build it, or pass --cuzarr)"
        if why:
            skipped[impl] = why
            print(f"skipping {impl}: {why}", file=sys.stderr)

    results: dict = {}
    sizes = []
    for ds in datasets:
        path = data_root / f"{ds}.zarr"
        if args.regenerate or not (path / "zarr.json").exists():
            print(f"generating {path} ...", file=sys.stderr)
            subprocess.run([sys.executable, __file__, "generate", str(path), ds, str(args.scale)],
                           check=True)
        sizes.append(f"{ds} {dataset_bytes(path) / 2**20:.0f} MiB decoded, "
                     f"{stored_bytes(path) / 2**20:.0f} MiB stored")
        print(sizes[-1], file=sys.stderr)
        for op in operations_for(ds):
            if wanted_ops and op not in wanted_ops:
                continue
            for impl in impls:
                if impl in skipped:
                    continue
                dst = data_root / "out" / f"{impl}-{ds}.zarr"
                if impl == "cuzarr":
                    cmd = cuzarr_command(args.cuzarr, op, path, dst, args.repeat, args.threads)
                else:
                    cmd = [sys.executable, __file__, "worker", "--impl", impl, "--op", op,
                           "--path", str(path), "--dst", str(dst), "--repeat", str(args.repeat)]
                warm_page_cache(path)
                cell = run_cell(cmd, args.timeout)
                if dst.exists():
                    shutil.rmtree(dst)
                results[(ds, op, impl)] = cell
                shown = cell.get("error") or f"{min(cell['seconds']):.3f} s, {fmt_rss(cell)} MiB"
                print(f"  {op:20s} {impl:12s} {shown}", file=sys.stderr)
                if args.json:  # after every cell, so that an interrupted run keeps what it measured
                    write_json(args.json, results)

    cache = "warm: every file of a dataset was read once before each cell" + (
        "" if can_drop_page_cache() else " (dropping the page cache needs root here)")
    report = [
        f"Machine: {machine_text()}",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        "Command: " + " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
        f"Scale: cube edge {args.scale} (uint16 {args.scale ** 3 * 2 / 2**20:.0f} MiB); "
        f"chunks {args.scale // 4}^3, shards {args.scale // 4}^3 of {args.scale // 16}^3 inner chunks",
        "Datasets: " + "; ".join(sizes),
        f"Page cache: {cache}",
        f"Timed runs per cell: {args.repeat} (best shown); seconds, lower is better; "
        "peer/cuzarr = peer seconds / cuzarr seconds (> 1: cuzarr faster); "
        "RSS = peak resident memory of the cell's process",
    ]
    report += [f"Skipped {i}: {why}" for i, why in skipped.items()]
    shown_impls = [i for i in impls if i not in skipped]
    table = markdown_table(results, shown_impls, datasets)
    text = "\n".join(f"- {line}" for line in report) + "\n\n" + table + "\n"
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        write_json(args.json, results)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "generate":
        generate(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "worker":
        p = argparse.ArgumentParser()
        p.add_argument("worker")
        p.add_argument("--impl", required=True, choices=["tensorstore", "zarr", "zarrs"])
        p.add_argument("--op", required=True)
        p.add_argument("--path", required=True)
        p.add_argument("--dst", required=True)
        p.add_argument("--repeat", type=int, default=1)
        worker(p.parse_args())
    else:
        main()
