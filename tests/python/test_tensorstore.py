"""tensorstore as a second independent implementation, both ways, for a representative subset of
the case matrix (skipped when tensorstore is not installed)."""

import json

import numpy as np
import pytest

from cases import CASES, PARTIAL_REGION, TENSORSTORE_CASE_IDS, expected_after_write, fill_value_json, make_data
from cuzarr_cli import assert_same, read_with_cuzarr, run

ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.cross_implementation

SUBSET = [c for c in CASES if c.id in TENSORSTORE_CASE_IDS]


def tensorstore_spec(path):
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}


@pytest.mark.parametrize("case", SUBSET, ids=[c.id for c in SUBSET])
def test_cuzarr_reads_what_tensorstore_wrote(case, tmp_path):
    data = make_data(case.dtype, case.shape, seed=7)
    path = tmp_path / "array.zarr"
    spec = tensorstore_spec(path)
    spec["metadata"] = {
        "shape": list(case.shape),
        "data_type": case.dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(case.chunks)}},
        "chunk_key_encoding": {"name": "default"},
        "codecs": case.codecs,
        "fill_value": fill_value_json(case.fill_value, case.dtype),
    }
    array = ts.open(spec, create=True).result()
    if case.partial:
        array[PARTIAL_REGION].write(data[PARTIAL_REGION]).result()
    else:
        array.write(data).result()
    assert_same(read_with_cuzarr(path, tmp_path), expected_after_write(case, data))


@pytest.mark.parametrize("case", SUBSET, ids=[c.id for c in SUBSET])
def test_tensorstore_reads_what_cuzarr_wrote(case, tmp_path):
    data = make_data(case.dtype, case.shape, seed=8)
    expected = expected_after_write(case, data)
    source = tmp_path / "input.npy"
    np.save(source, expected)
    path = tmp_path / "array.zarr"
    args = ["import", source, path, "--chunks", ",".join(map(str, case.chunks)),
            "--fill-value", json.dumps(fill_value_json(case.fill_value, case.dtype))]
    for codec in case.codecs:
        args += ["--codec", json.dumps(codec)]
    run(*args)
    array = ts.open(tensorstore_spec(path), open=True).result()
    assert_same(np.asarray(array.read().result()), expected)
