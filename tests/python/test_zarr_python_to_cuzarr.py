"""zarr-python 3 writes arrays over the case matrix; cuzarr must read exactly the same values."""

import numpy as np
import pytest
import zarr

from cases import CASES, PARTIAL_REGION, expected_after_write, make_data
from cuzarr_cli import assert_same, read_with_cuzarr

pytestmark = pytest.mark.cross_implementation


def write_with_zarr_python(case, path, data):
    array = zarr.create(shape=case.shape, chunks=case.chunks, dtype=case.dtype, codecs=case.codecs,
                        fill_value=case.fill_value, store=str(path), zarr_format=3)
    if case.partial:
        array[PARTIAL_REGION] = data[PARTIAL_REGION]
    else:
        array[...] = data
    return array


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cuzarr_reads_what_zarr_python_wrote(case, tmp_path):
    data = make_data(case.dtype, case.shape)
    path = tmp_path / "array.zarr"
    array = write_with_zarr_python(case, path, data)
    expected = expected_after_write(case, data)
    assert_same(array[...], expected)  # the writer itself agrees with the expectation
    assert_same(read_with_cuzarr(path, tmp_path), expected)


SELECTIONS = [
    ("3:19:2, ::3", np.s_[3:19:2, ::3]),
    ("::-1, 4", np.s_[::-1, 4]),
    ("-5:, 1:16:4", np.s_[-5:, 1:16:4]),
    ("..., 7", np.s_[..., 7]),
    ("2, ::-2", np.s_[2, ::-2]),
    ("20:2:-3, 15:1:-5", np.s_[20:2:-3, 15:1:-5]),
    ("5, 6", np.s_[5, 6]),
    ("0:0, :", np.s_[0:0, :]),
    (":, -1", np.s_[:, -1]),
    ("7:9", np.s_[7:9]),
    ("::7, ::-4", np.s_[::7, ::-4]),
]
SELECTION_CODECS = ["zstd", "transpose", "sharding-end", "sharding-in-sharding", "transpose-sharding"]


@pytest.mark.parametrize("codec_name", SELECTION_CODECS)
@pytest.mark.parametrize("text,index", SELECTIONS, ids=[s[0] for s in SELECTIONS])
def test_selection_matches_numpy_slicing(codec_name, text, index, tmp_path):
    from cases import Case

    case = Case(f"select-{codec_name}", "int32", codec_name, partial=True, fill_value=-1)
    data = make_data(case.dtype, case.shape, seed=5)
    path = tmp_path / "array.zarr"
    write_with_zarr_python(case, path, data)
    expected = expected_after_write(case, data)[index]
    assert_same(read_with_cuzarr(path, tmp_path, select=text), np.asarray(expected))
