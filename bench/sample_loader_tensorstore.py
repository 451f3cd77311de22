#!/usr/bin/env python3
"""Reads the samples of the Zarr array that cuzarr_sample_loader_throughput writes with
tensorstore, batch by batch, and copies each batch into a preallocated cupy array on the GPU: the
usual path today (read and decode on the CPU, then copy). In order and shuffled (numpy's
permutation with the same seed: a different order than cuzarr's, the same amount of work). Prints
samples/s and GB/s, and "RESULT <order> <samples/s> <GB/s> <memory kind>" lines for scripts.

    sample_loader_tensorstore.py PATH [--batch B] [--epochs E]

Without cupy or a GPU it says so and exits with status 0 (nothing measured).
"""
import argparse
import sys
import time

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="directory of the Zarr v3 array")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")
    except Exception as error:  # ImportError, or CUDA errors without a GPU
        print(f"skipped: cupy with a GPU is needed ({error})")
        return 0
    import tensorstore as ts

    array = ts.open(
        {"driver": "zarr3", "kvstore": {"driver": "file", "path": args.path}}, open=True
    ).result()
    count = array.shape[0]
    sample_bytes = int(np.prod(array.shape[1:])) * array.dtype.numpy_dtype.itemsize
    batch = cupy.empty((args.batch,) + tuple(array.shape[1:]), dtype=array.dtype.numpy_dtype)

    for order in ("sequential", "shuffled"):
        seen = 0
        start = time.perf_counter()
        for epoch in range(args.epochs):
            if order == "shuffled":
                indices = np.random.default_rng(epoch).permutation(count)
            for first in range(0, count, args.batch):
                last = min(first + args.batch, count)
                if order == "sequential":
                    host = array[first:last].read().result()
                else:
                    host = array[indices[first:last]].read().result()
                batch[: last - first].set(host)
                seen += last - first
        cupy.cuda.Device().synchronize()
        seconds = time.perf_counter() - start
        rate = seen / seconds
        print(f"{order:<10} {seen} samples in {seconds:.3f} s: {rate:.0f} samples/s, "
              f"{rate * sample_bytes / 1e9:.3f} GB/s into device memory (batch {args.batch})")
        print(f"RESULT {order} {rate:.1f} {rate * sample_bytes / 1e9:.4f} device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
