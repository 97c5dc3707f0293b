"""Views through real MPI: mpi4py on Open MPI, 2 and 4 ranks under mpirun.

pytest runs this file as an MPI program (``mpirun -n N python test_mpi.py
--worker OUT``) once per rank count. Every rank runs every check below and
records "ok", "skip: why" or the traceback; rank 0 writes them to OUT and
the tests read them, one test per check and rank count. Checks:
- the MPI datatype mpi4py derives from a View's buffer format, every dtype;
- Send/Recv of every dtype (LayoutRight and LayoutLeft, View <-> View and
  View <-> NumPy), Allreduce of every dtype (and in place), Bcast, Alltoall,
  Gatherv / Scatter / Reduce, Isend/Irecv (and the exports a pending request
  holds), lowercase pickle-based calls (in band and mpi4py.util.pkl5 out of
  band), clear errors for non-contiguous and read-only Views;
- float16: mpi4py derives MPI.FLOAT16_T from its format, as for NumPy's
  float16 arrays; Open MPI 4.1 lacks that datatype (MPI_ERR_TYPE), so the
  View travels as 16-bit words there and is left out of the other checks;
- examples/heat_mpi.py on 4 ranks.
Skipped only when mpirun or mpi4py is missing.
"""

import json
import os
import shutil
import subprocess
import sys
import traceback

import numpy as np
import pytest

import kokkos
from support import mpirun, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# canonical names; float16 has its own check (check_float16)
DTYPES = [kokkos.get_dtype(d) for d in kokkos.all_dtypes if d != kokkos.float16]
# What mpi4py must derive from a View's buffer format (see MPI_TYPES below).
FORMATS = {
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",  # pybind11's format, as the original exported it (NumPy reads numpy.longlong)
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "float32": "f",
    "float64": "d",
    "complex64": "Zf",
    "complex128": "Zd",
    "bool": "?",
}


def values(dtype, shape, seed):
    """Deterministic values of dtype, small enough that sums of 4 fit int8."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        v = rng.integers(0 if dt.kind == "u" else -30, 30, n).astype(dt)
    elif dt.kind == "c":
        v = (rng.integers(-50, 50, n) + 1j * rng.integers(-50, 50, n)).astype(dt)
    else:
        v = rng.integers(-50, 50, n).astype(dt)  # exact in float sums
    return v.reshape(shape)


def new_view(dtype, shape, layout=kokkos.LayoutRight, label="mpi", fill=None):
    v = kokkos.View(shape, dtype, label=label, layout=layout)
    if fill is not None:
        np.asarray(v)[...] = fill
    return v


# ---- the checks (run on every rank under mpirun) -------------------------------------


def check_datatypes(comm, MPI, dtype):
    v = new_view(dtype, (3, 2))
    fmt = memoryview(v).format
    assert fmt == FORMATS[dtype], (fmt, FORMATS[dtype])
    expected = {
        "int8": MPI.SIGNED_CHAR,
        "int16": MPI.SHORT,
        "int32": MPI.INT,
        "int64": MPI.LONG_LONG,
        "uint8": MPI.UNSIGNED_CHAR,
        "uint16": MPI.UNSIGNED_SHORT,
        "uint32": MPI.UNSIGNED,
        "uint64": MPI.UNSIGNED_LONG_LONG,
        "float32": MPI.FLOAT,
        "float64": MPI.DOUBLE,
        "complex64": MPI.C_FLOAT_COMPLEX,
        "complex128": MPI.C_DOUBLE_COMPLEX,
        "bool": MPI.C_BOOL,
    }[dtype]
    derived = MPI.Datatype.fromcode(fmt)
    assert derived == expected, (derived.Get_name(), expected.Get_name())
    assert derived.Get_size() == v.itemsize
    # The same datatype mpi4py's message parsing uses for Send/Recv.
    assert MPI._typedict[fmt] == expected


def _ring(comm):
    return (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size


def check_send_recv(comm, MPI, dtype):
    dest, source = _ring(comm)
    for layout, shape in ((kokkos.LayoutRight, (4, 3)), (kokkos.LayoutLeft, (3, 2, 5))):
        send = new_view(dtype, shape, layout, "send", values(dtype, shape, comm.rank))
        recv = new_view(dtype, shape, layout, "recv")
        # Even ranks send first, odd ranks receive first: a ring with no deadlock.
        if comm.rank % 2 == 0:
            comm.Send(send, dest=dest, tag=1)
            comm.Recv(recv, source=source, tag=1)
        else:
            comm.Recv(recv, source=source, tag=1)
            comm.Send(send, dest=dest, tag=1)
        np.testing.assert_array_equal(np.asarray(recv), values(dtype, shape, source))
        assert recv.layout == layout and recv.label == "recv"
    # View -> NumPy and NumPy -> View (same shape, C order).
    shape = (7,)
    ours = new_view(dtype, shape, fill=values(dtype, shape, 100 + comm.rank))
    theirs = np.zeros(shape, dtype)
    comm.Sendrecv(ours, dest=dest, recvbuf=theirs, source=source)
    np.testing.assert_array_equal(theirs, values(dtype, shape, 100 + source))
    back = new_view(dtype, shape)
    comm.Sendrecv(values(dtype, shape, 200 + comm.rank), dest=dest, recvbuf=back, source=source)
    np.testing.assert_array_equal(np.asarray(back), values(dtype, shape, 200 + source))


def check_allreduce(comm, MPI, dtype):
    shape = (5, 4)
    op = MPI.LOR if dtype == "bool" else MPI.SUM
    mine = new_view(dtype, shape, fill=values(dtype, shape, comm.rank))
    out = new_view(dtype, shape, kokkos.LayoutRight, "sum")
    comm.Allreduce(mine, out, op=op)
    everyone = [values(dtype, shape, r) for r in range(comm.size)]
    want = np.logical_or.reduce(everyone) if dtype == "bool" else np.sum(everyone, axis=0, dtype=dtype)
    np.testing.assert_array_equal(np.asarray(out), want)
    # In place, on a LayoutLeft View.
    inplace = new_view(dtype, shape, kokkos.LayoutLeft, "inplace", values(dtype, shape, comm.rank))
    comm.Allreduce(MPI.IN_PLACE, inplace, op=op)
    np.testing.assert_array_equal(np.asarray(inplace), want)
    if np.dtype(dtype).kind in "iuf":
        top = new_view(dtype, shape)
        comm.Allreduce(mine, top, op=MPI.MAX)
        np.testing.assert_array_equal(np.asarray(top), np.max(everyone, axis=0))


def check_bcast(comm, MPI):
    for dtype in DTYPES:
        shape = (2, 3, 2)
        v = new_view(
            dtype,
            shape,
            kokkos.LayoutLeft,
            fill=values(dtype, shape, 7) if comm.rank == 0 else None,
        )
        comm.Bcast(v, root=0)
        np.testing.assert_array_equal(np.asarray(v), values(dtype, shape, 7))
    d = kokkos.DynRankView((4, 4), kokkos.float32, label="dyn")
    if comm.rank == comm.size - 1:
        np.asarray(d)[...] = 2.5
    comm.Bcast(d, root=comm.size - 1)
    assert np.all(np.asarray(d) == 2.5)


def check_alltoall(comm, MPI):
    n, k = comm.size, 3
    send = new_view(
        kokkos.int64,
        (n, k),
        fill=[[comm.rank * 100 + j * 10 + i for i in range(k)] for j in range(n)],
    )
    recv = new_view(kokkos.int64, (n, k))
    comm.Alltoall(send, recv)
    want = [[src * 100 + comm.rank * 10 + i for i in range(k)] for src in range(n)]
    np.testing.assert_array_equal(np.asarray(recv), want)


def check_gather_scatter_reduce(comm, MPI):
    n, root = comm.size, 0
    part = new_view(kokkos.float64, (3,), fill=[comm.rank, comm.rank + 0.5, -comm.rank])
    allv = new_view(kokkos.float64, (n, 3)) if comm.rank == root else None
    comm.Gather(part, allv, root=root)
    if comm.rank == root:
        np.testing.assert_array_equal(np.asarray(allv), [[r, r + 0.5, -r] for r in range(n)])
    # Gatherv of blocks of different sizes.
    counts = [r + 1 for r in range(n)]
    mine = new_view(kokkos.int32, (comm.rank + 1,), fill=comm.rank)
    got = new_view(kokkos.int32, (sum(counts),)) if comm.rank == root else None
    comm.Gatherv(mine, (got, counts) if comm.rank == root else None, root=root)
    if comm.rank == root:
        np.testing.assert_array_equal(np.asarray(got), np.repeat(np.arange(n), counts))
    # Scatter rows of a View, Reduce them back.
    table = (
        new_view(kokkos.complex128, (n, 2), fill=[[r + 1j, 2 * r - 1j] for r in range(n)])
        if comm.rank == root
        else None
    )
    row = new_view(kokkos.complex128, (2,))
    comm.Scatter(table, row, root=root)
    np.testing.assert_array_equal(np.asarray(row), [comm.rank + 1j, 2 * comm.rank - 1j])
    total = new_view(kokkos.complex128, (2,)) if comm.rank == root else None
    comm.Reduce(row, total, op=MPI.SUM, root=root)
    if comm.rank == root:
        r = np.arange(n)
        np.testing.assert_array_equal(np.asarray(total), [r.sum() + n * 1j, (2 * r).sum() - n * 1j])


def check_isend_irecv(comm, MPI):
    dest, source = _ring(comm)
    reqs, recvs = [], []
    for i, dtype in enumerate(DTYPES):
        send = new_view(dtype, (64,), fill=values(dtype, (64,), 1000 * comm.rank + i))
        recv = new_view(dtype, (64,), label=f"irecv:{dtype}")
        reqs.append(comm.Irecv(recv, source=source, tag=i))
        reqs.append(comm.Isend(send, dest=dest, tag=i))
        recvs.append((dtype, i, recv, send))
    # A pending request holds a buffer export of each View it uses.
    assert recvs[0][2].allocation.exports >= 1
    MPI.Request.Waitall(reqs)
    reqs.clear()
    for dtype, i, recv, send in recvs:
        np.testing.assert_array_equal(np.asarray(recv), values(dtype, (64,), 1000 * source + i))
        assert recv.allocation.exports == 0 and send.allocation.exports == 0


def check_lowercase(comm, MPI):
    dest, source = _ring(comm)
    v = new_view(
        kokkos.complex64,
        (3, 4),
        kokkos.LayoutLeft,
        f"obj{comm.rank}",
        values("complex64", (3, 4), comm.rank),
    )
    got = comm.sendrecv(v, dest=dest, source=source)
    assert isinstance(got, kokkos.View) and got.label == f"obj{source}"
    assert (got.dtype, got.shape, got.layout, got.space) == (
        kokkos.complex64,
        (3, 4),
        kokkos.LayoutLeft,
        kokkos.HostSpace,
    )
    np.testing.assert_array_equal(np.asarray(got), values("complex64", (3, 4), source))
    d = kokkos.DynRankView((2, 2), kokkos.uint16, label="dyn") if comm.rank == 0 else None
    if d is not None:
        np.asarray(d)[...] = 9
    d = comm.bcast(d, root=0)
    assert d.dynamic and d.label == "dyn" and np.all(np.asarray(d) == 9)
    parts = comm.gather(new_view(kokkos.int8, (comm.rank + 1,), fill=comm.rank), root=0)
    if comm.rank == 0:
        assert [p.shape for p in parts] == [(r + 1,) for r in range(comm.size)]
        assert all(np.all(np.asarray(p) == r) for r, p in enumerate(parts))
    # Out of band: mpi4py.util.pkl5 sends the View's memory as its own message.
    from mpi4py.util import pkl5

    pcomm = pkl5.Intracomm(comm)
    big = new_view(kokkos.float64, (300, 500), label="big", fill=values("float64", (300, 500), comm.rank))
    if comm.rank % 2 == 0:
        pcomm.send(big, dest=dest, tag=5)
        got = pcomm.recv(source=source, tag=5)
    else:
        got = pcomm.recv(source=source, tag=5)
        pcomm.send(big, dest=dest, tag=5)
    assert got.label == "big" and got.shape == (300, 500)
    np.testing.assert_array_equal(np.asarray(got), values("float64", (300, 500), source))


def _raises(fn, exc, *needles):
    try:
        fn()
    except exc as e:
        text = str(e) + " | " + str(e.__context__ or "")
        assert any(n in text for n in needles), text
        return text
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


def check_float16(comm, MPI):
    dest, source = _ring(comm)
    shape = (4, 3)
    v = new_view("float16", shape, fill=values("float16", shape, comm.rank))
    assert memoryview(v).format == "e"
    assert MPI.Datatype.fromcode("e") == MPI.FLOAT16_T
    recv = new_view("float16", shape, label="recv16")
    try:
        MPI.FLOAT16_T.Get_size()
        native = True
    except MPI.Exception:
        native = False
    if native:
        comm.Sendrecv(v, dest=dest, recvbuf=recv, source=source)
    else:
        # What NumPy's float16 arrays get too; the bits go as 16-bit words.
        _raises(lambda: comm.Sendrecv(v, dest=dest, recvbuf=recv, source=source), MPI.Exception, "MPI_ERR_TYPE")
        comm.Sendrecv([v, MPI.UINT16_T], dest=dest, recvbuf=[recv, MPI.UINT16_T], source=source)
    np.testing.assert_array_equal(np.asarray(recv), values("float16", shape, source))


def check_errors(comm, MPI):
    dest, source = _ring(comm)
    v = new_view(kokkos.float64, (6, 4), label="grid")
    strided = v[:, 1:3]  # LayoutStride, not contiguous
    assert not strided.is_contiguous
    # mpi4py tries the buffer protocol, then DLPack: both say why.
    text = _raises(lambda: comm.Send(strided, dest=dest), BufferError, "not contiguous")
    assert "View 'grid' cannot export this buffer: it is not contiguous" in text, text
    _raises(lambda: comm.Recv(v[::2, :], source=source), BufferError, "not contiguous")
    _raises(lambda: comm.Allreduce(MPI.IN_PLACE, strided, op=MPI.SUM), BufferError, "not contiguous")
    # Receiving into a read-only View.
    ro = kokkos.array(bytes(32), dtype=kokkos.uint8)
    assert ro.readonly
    _raises(lambda: comm.Recv(ro, source=source), BufferError, "read-only", "not writable")
    # A contiguous subview is fine (one row of a LayoutRight View).
    row = v[2, :]
    np.asarray(row)[:] = comm.rank
    comm.Sendrecv(row, dest=dest, recvbuf=v[3, :], source=source)
    assert np.all(np.asarray(v)[3] == source)


def mpi_is_cuda_aware():
    """True if Open MPI's ompi_info says it was built with CUDA support."""
    ompi_info = shutil.which("ompi_info")
    if ompi_info is None:
        return False
    out = subprocess.run([ompi_info, "--parsable", "--all"], check=False, capture_output=True, text=True).stdout
    return ":opal_built_with_cuda_support:value:true" in out or ":mpi_built_with_cuda_support:value:true" in out


def check_device_views(comm, MPI):
    if not kokkos.get_memory_space_available("CudaSpace"):
        return "skip: this Kokkos has no CudaSpace"
    if not mpi_is_cuda_aware():
        return "skip: this MPI is not CUDA-aware (Open MPI: ompi_info shows opal_built_with_cuda_support)"
    dest, source = _ring(comm)
    send = kokkos.View((1000,), kokkos.float64, space=kokkos.CudaSpace, label="dev")
    send.deep_copy(float(comm.rank))
    recv = kokkos.View((1000,), kokkos.float64, space=kokkos.CudaSpace, label="dev_recv")
    comm.Sendrecv(send, dest=dest, recvbuf=recv, source=source)
    assert np.all(np.asarray(recv.create_mirror_view(copy=True)) == source)


def all_checks():
    """(name, function, args) of every check, in the order every rank runs them."""
    checks = []
    checks += [(f"datatypes[{d}]", check_datatypes, (d,)) for d in DTYPES]
    checks += [(f"send_recv[{d}]", check_send_recv, (d,)) for d in DTYPES]
    checks += [(f"allreduce[{d}]", check_allreduce, (d,)) for d in DTYPES]
    checks += [
        ("bcast", check_bcast, ()),
        ("alltoall", check_alltoall, ()),
        ("gather_scatter_reduce", check_gather_scatter_reduce, ()),
        ("isend_irecv", check_isend_irecv, ()),
        ("lowercase", check_lowercase, ()),
        ("float16", check_float16, ()),
        ("errors", check_errors, ()),
        ("device_views", check_device_views, ()),
    ]
    return checks


def worker(out):
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    results = {}
    for name, fn, args in all_checks():
        try:
            res = fn(comm, MPI, *args)
            results[name] = res if isinstance(res, str) else "ok"
        except Exception:  # noqa: BLE001  (every failure is reported to pytest, per rank)
            results[name] = traceback.format_exc()
        comm.Barrier()
    everyone = comm.gather(results, root=0)
    if comm.rank == 0:
        merged = {name: {r: res[name] for r, res in enumerate(everyone)} for name in results}
        with open(out, "w") as f:
            json.dump(merged, f)


# ---- pytest side -----------------------------------------------------------------------

_results = {}


def results_for(nprocs, tmp_path_factory):
    if nprocs not in _results:
        out = tmp_path_factory.mktemp(f"mpi{nprocs}") / "results.json"
        proc = mpirun(nprocs, [os.path.abspath(__file__), "--worker", str(out)])
        if proc.returncode != 0 or not out.exists():
            _results[nprocs] = f"mpirun -n {nprocs} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        else:
            _results[nprocs] = json.loads(out.read_text())
    return _results[nprocs]


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 4])
@pytest.mark.parametrize("check", [name for name, _, _ in all_checks()])
def test_mpi(check, nprocs, tmp_path_factory):
    results = results_for(nprocs, tmp_path_factory)
    if isinstance(results, str):
        pytest.fail(results)
    per_rank = results[check]
    assert len(per_rank) == nprocs
    skips = {r for r in per_rank.values() if r.startswith("skip: ")}
    if skips and all(r.startswith("skip: ") for r in per_rank.values()):
        pytest.skip(skips.pop()[len("skip: ") :])
    failed = {rank: res for rank, res in per_rank.items() if res != "ok"}
    assert not failed, "\n".join(f"rank {rank}:\n{res}" for rank, res in failed.items())


@needs_mpi
def test_heat_example_four_ranks():
    proc = mpirun(4, [os.path.join(ROOT, "examples", "heat_mpi.py"), "--points", "203", "--steps", "3000"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 rank(s), 203 points, 3000 steps" in proc.stdout
    assert "max |MPI - serial NumPy| = 0" in proc.stdout and ": OK" in proc.stdout, proc.stdout


@needs_mpi
def test_heat_example_reports_bad_input():
    proc = mpirun(2, [os.path.join(ROOT, "examples", "heat_mpi.py"), "--points", "1"])
    assert proc.returncode != 0
    assert "need at least one point per rank" in proc.stdout


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        sys.exit("usage: mpirun -n N python test_mpi.py --worker OUT.json (pytest runs this)")
