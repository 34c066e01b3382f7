#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_abi.cpp (fuzz/corpus/): call sequences in the harness's encoding,
so fuzzing starts from inputs that reach deep (kernels that build, launch and read back) instead
of rediscovering them. Run it after changing the encoding; the files are checked in.

The encoding mirrors fuzz_abi.cpp: bytes are read front to back, little-endian; the op is one byte
(mod 25); choose() reads a 'how' byte (0-2: a live handle of the wanted type, then an index byte;
3: another type; 4: freed; 5: forged; 6: special; 7: raw u32); choose_u32 reads a 'how' byte
(how >= 0xE0: a raw u32 follows, else entry how % len of the call's list)."""
import pathlib
import struct

OPS = dict(context_create=0, context_free=1, program_create=2, program_free=3, kernel_create=4,
           kernel_free=5, buffer_create=6, buffer_free=7, write=8, read=9, set_arg=10,
           set_arg_mem=11, set_arg_local=12, execute=13, status=14, info_integer=15,
           info_string=16, device_info=17, handle_type=18, bind_and_run=19,
           tensor_map=20, gemm=21, read_async=22, owner_round=23, mat_mul=24)
KERNELS = ["fill", "axpy", "reverse_local", "sum4", "scale_double", "mixed", "count",
           "local_only", "noop"]
VALUE_BYTES = {"fill": [4, 4], "axpy": [4, 4], "reverse_local": [4, 4], "sum4": [4, 16],
               "scale_double": [4, 8], "mixed": [4, 1, 2, 8, 1], "count": [4],
               "local_only": [4], "noop": []}
GLOBALS = {"fill": 1, "axpy": 2, "reverse_local": 2, "sum4": 1, "scale_double": 1, "mixed": 1,
           "count": 1, "local_only": 0, "noop": 0}
LOCALS = {"reverse_local": 1, "local_only": 1}


class Seed:
    def __init__(self):
        self.data = bytearray()

    def u8(self, *values):
        self.data += bytes(values)
        return self

    def u32(self, value):
        self.data += struct.pack("<I", value & 0xFFFFFFFF)
        return self

    def op(self, name):
        return self.u8(OPS[name])

    def live(self, index=0):  # choose(): a live handle of the wanted type
        return self.u8(0, index)

    def raw_u32(self, value):  # choose_u32(): a raw value
        return self.u8(0xE0).u32(value)

    # ---- Composite steps ----------------------------------------------------------------------
    def context(self):
        return self.op("context_create").u8(0, 0)  # MQLCL_USE_ANY

    def program(self, context=0, options=None, log_capacity_how=4):
        self.op("program_create").live(context).u8(0)  # the safe source
        if options is None:
            return self.u8(0)  # CLProgramCreate
        self.u8(1, len(options), *options)  # CLProgramCreateEx, option token indexes
        return self.u8(1, log_capacity_how, 1)  # options given, capacity, log given

    def kernel(self, name, program=0):
        return self.op("kernel_create").live(program).u8(0, KERNELS.index(name))

    def buffer(self, size_how=9, context=0, flags_how=0):  # 9: 1024 bytes, 10: 4096
        # The last byte: through CLBufferCreate, not CLBufferCreate64 (a multiple of 4 is).
        return self.op("buffer_create").live(context).u8(size_how, flags_how, 1)


def bind_and_run(seed, name, kernel=0, buffers=(0, 1), local_shift=4, work_dim_how=0,
                 global_how=(7, 0, 0), local_how=(0, 0, 0), with_offsets=False, with_local=False):
    """bind_and_run in the exact order fuzz_abi.cpp reads it."""
    seed.op("bind_and_run").u8(kernel)
    for i in range(GLOBALS[name]):
        seed.u8(buffers[i % len(buffers)])
    if name in LOCALS:
        seed.u8(local_shift)
    counts = {"fill": [0], "axpy": [0], "reverse_local": [0, 1], "sum4": [0],
              "scale_double": [0], "mixed": [0], "count": [0], "local_only": [0], "noop": []}
    for position, size in enumerate(VALUE_BYTES[name]):
        seed.u8(*([3] * size))
        if position in counts[name]:
            seed.u8(1)  # all that fits
    seed.u8(work_dim_how)
    for d in range(3):
        seed.u8(3 if with_offsets else 0, global_how[d], local_how[d])  # offset 7 or 0
    seed.u8(1 if with_offsets else 0, 1, 1 if with_local else 0)
    return seed


# CLGemm's choices, as the 'how' indexes of fuzz_abi.cpp's gemm(): the element type, precision,
# transposes, sizes, batch, scalars, and per operand ld, stride and offset.
GEMM_SIZES = [1, 2, 7, 16, 37, 64, 0, 3]
GEMM_REALS = ["1", "0", "-1", "0.5", "2", "-0", "nan", "inf", "-inf", "1e300", "4.9e-324", "1e-40"]
GEMM_BASE = dict(a=(0, 0), b=(0, 1), c=(0, 2), c_how=2, type=0, precision=0, ta=0, tb=0,
                 m=GEMM_SIZES.index(7), n=GEMM_SIZES.index(7), k=GEMM_SIZES.index(7), batch=0,
                 alpha=GEMM_REALS.index("1"), beta=GEMM_REALS.index("0"),
                 layout=((0, 0, 0), (0, 0, 0), (0, 0, 0)), fill=1)


def gemm(seed, **changes):
    """gemm() in the exact order fuzz_abi.cpp reads it; `changes` override GEMM_BASE. Handles are
    choose() byte pairs; c_how 0 or 1 puts C in A's or B's buffer (then `c` is not read); layout
    holds (ld, stride, offset) 'how' bytes per operand: ld 0 (stored width), cols, cols + 1,
    cols + 5, cols - 1, 1, max; stride span, 0, span + 1, span + 3, span - 1, 1, max / 2, max;
    offset 0, 1, 4, the last that fits, one past it, the element count, max."""
    g = dict(GEMM_BASE, **changes)
    return gemm_choices(seed.op("gemm"), g).u8(g["fill"])


def gemm_choices(seed, g):
    """decode_gemm() in fuzz_abi.cpp: the choices gemm() and mat_mul() both read first."""
    seed.u8(*g["a"], *g["b"], g["c_how"])
    if g["c_how"] % 8 >= 2:
        seed.u8(*g["c"])
    seed.u8(g["type"], g["precision"], g["ta"], g["tb"], g["m"], g["n"], g["k"], g["batch"],
            g["alpha"], g["beta"])
    for ld, stride, offset in g["layout"]:
        seed.u8(ld, stride, offset)
    return seed


def mat_mul(seed, null_one=15, **changes):
    """mat_mul() in the exact order fuzz_abi.cpp reads it: gemm()'s choices (the layouts, batch,
    transposes and scalars are read, then replaced by the packed product's), then which host
    array is NULL (0-2: a, b, c; 3-15: none)."""
    return gemm_choices(seed.op("mat_mul"), dict(GEMM_BASE, **changes)).u8(null_one)


def main():
    out = pathlib.Path(__file__).resolve().parent / "corpus"
    out.mkdir(exist_ok=True)
    for old in out.glob("seed-*"):
        old.unlink()
    seeds = {}

    # Every kernel of the persistent program (the harness keeps one built across inputs) bound
    # and launched, its output read back; and once from a program the input builds itself.
    for name in KERNELS:
        s = Seed().kernel(name).buffer(10).buffer(10)
        seeds[f"run-{name}"] = bind_and_run(s, name)
    s = Seed().context().program(context=1).kernel("fill", program=1).buffer(10, context=1)
    seeds["run-fill-own-program"] = bind_and_run(s, "fill", buffers=(0,))
    # Two and three dimensions, explicit work-groups and global offsets.
    s = Seed().kernel("fill").buffer(10)
    seeds["run-fill-2d-local"] = bind_and_run(s, "fill", buffers=(0,), work_dim_how=2,
                                              global_how=(4, 4, 0), local_how=(4, 4, 0),
                                              with_local=True, with_offsets=True)
    s = Seed().kernel("axpy").buffer(11).buffer(11)  # 64 KiB each
    seeds["run-axpy-4096"] = bind_and_run(s, "axpy", global_how=(11, 0, 0))
    s = Seed().kernel("reverse_local").buffer(10).buffer(10)
    seeds["run-reverse-3d"] = bind_and_run(s, "reverse_local", work_dim_how=3,
                                           global_how=(3, 2, 1), local_how=(5, 2, 2),
                                           with_local=True)
    # CLProgramCreateEx with build options and a log capacity too small for the log.
    s = Seed().context().program(options=[0, 1], log_capacity_how=2)
    s.program(options=[13, 14], log_capacity_how=1)  # a bad option, an unpaired surrogate
    s.op("program_create").live(0).u8(4, 1, 1, 2, 1, 2, 1)  # broken source, 2-unit log
    seeds["program-options-and-logs"] = s
    # Information of every kind on live, ordinal and junk handles, small capacities.
    s = Seed().context().program().kernel("axpy").buffer(9)
    for prop in range(0, 36, 3):
        s.op("info_integer").u8(0, 0, 0, 0, 0, prop)  # context
        s.op("info_integer").u8(0, 2, 0, 0, 0, prop)  # kernel
    for prop in range(0, 22):
        s.op("info_string").u8(1, 0, 0, 0, 0, 0, prop, 3, 1)  # 4-unit capacity
    s.op("device_info").u8(3, 0, 0, 8, 1, 1, 1)  # ordinal 0, CL_DEVICE_NAME, 1 byte
    s.op("device_info").u8(0, 0, 0, 0, 0, 8, 5, 1, 1)  # the context's device, 1024 bytes
    s.op("handle_type").u8(3, 1)
    seeds["information"] = s
    # Lifetimes: parents freed first, then children used, stale and forged handles.
    s = Seed().context().program().kernel("fill").buffer(10)
    s.op("context_free").live(0).op("program_free").live(0)
    bind_and_run(s, "fill", buffers=(0,))
    s.op("kernel_free").live(0).op("kernel_free").u8(4, 0)  # then a freed one
    s.op("buffer_free").u8(5, 0, 0).op("set_arg_mem").u8(4, 0, 0, 6, 2)
    seeds["lifetimes"] = s
    # Non-blocking reads: a poll before any start, a whole read taken as floats, a start past
    # the end, a take larger than the read (refused, then ended); a read left pending while the
    # buffer is overwritten, then taken at host offset 1; one left pending and taken with a host
    # range past the end of the address space (refused), one freed with its buffer; owner rounds,
    # one freeing the owner with a read pending. A take's bytes: element, count, data_offset;
    # then whether a read of the same range is left pending (3).
    s = Seed().context().buffer(9)
    s.op("read_async").live(0).u8(0, 0, 0, 1, 0, 0, 0)
    s.op("read_async").live(0).u8(1, 3, 0)
    s.op("read_async").live(0).u8(1, 2, 1, 0, 4, 0, 0)
    s.op("read_async").live(0).u8(1, 0, 0, 1, 0, 0, 3)
    s.op("write").u8(1).live(0).u8(0, 0, 3, 0, 1)  # 1024 bytes of 0x5A
    s.op("read_async").live(0).u8(1, 0, 2)  # the pending read, as floats, at host offset 1
    s.op("read_async").live(0).u8(1, 0, 0, 0, 0, 0, 3)
    s.op("read_async").live(0).u8(5, 1, 3)  # 1 element of 2^32 - 1 bytes at 2^32 - 1
    s.buffer(9).op("read_async").live(1).u8(1, 0, 0, 0, 0, 0, 3).op("buffer_free").live(1)
    s.op("owner_round").live(0).u8(1, 0)
    s.op("owner_round").u8(6, 0).u8(0, 1)  # a special handle
    seeds["reads-and-owners"] = s
    # Transfers at the edges of a 1024-byte buffer.
    s = Seed().context().buffer(9)
    for element_how, offset_how, count_how, data_how in [(0, 0, 6, 0), (1, 4, 0, 1), (2, 5, 0, 0),
                                                        (1, 0, 3, 2), (0, 6, 0, 4), (1, 3, 2, 1),
                                                        (7, 0, 0, 0), (1, 0, 5, 0)]:
        for op in ("write", "read"):
            s.op(op).live(0).u8(element_how, offset_how, count_how, data_how, 1)
    seeds["transfers"] = s
    # Kernel arguments of every kind, right and wrong.
    s = Seed().context().program().kernel("mixed").kernel("reverse_local").buffer(9)
    sizes = [4, 4, 1, 2, 8, 16, 0, 3, 64]
    for index in range(6):
        for size_how in (0, 2, 3, 4, 5, 6):
            s.op("set_arg").live(0).u8(index, size_how)
            s.u8(*([7] * sizes[size_how])).u8(1)
    s.op("set_arg_mem").live(1).u8(0).live(0)
    s.op("set_arg_local").live(1).u8(1, 0, 1, 1)
    s.op("execute").live(1).u8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1)
    s.op("status").live(1).op("info_integer").u8(0, 2, 0, 1, 0, 17)  # execution time
    seeds["arguments"] = s

    # Tensor maps: a valid request (refused with 5100 off NVIDIA Hopper), then each parameter
    # wrong in turn, then buffers of two contexts. The 'how' bytes: map_offset, buffer_offset,
    # rows, cols, row_pitch, box_rows, box_cols, swizzle, element type.
    s = Seed().context().buffer(9).buffer(9).buffer(9, context=1)
    valid = [0, 0, 0, 0, 0, 0, 0, 0, 0]
    wrong = [3, 2, 3, 4, 4, 3, 4, 4, 2]  # one bad choice per parameter
    s.op("tensor_map").live(0).live(1).u8(*valid)
    for i, how in enumerate(wrong):
        s.op("tensor_map").live(0).live(1).u8(*(valid[:i] + [how] + valid[i + 1:]))
    s.op("tensor_map").live(0).live(2).u8(*valid)
    seeds["tensor-maps"] = s

    # CLGemm: products that verify (float with B transposed, a batch, offsets and leading
    # dimensions; double with A transposed and NaN in a C that beta 0 must not read), then each
    # documented refusal in turn.
    size = GEMM_SIZES.index
    real = GEMM_REALS.index
    s = Seed().buffer(10).buffer(10).buffer(10)  # 1024 floats each
    gemm(s, tb=1, n=size(16), k=size(16), batch=1, beta=real("0.5"),
         layout=((2, 2, 1), (0, 1, 3), (0, 0, 3)))
    gemm(s, precision=1, ta=1, tb=1, m=size(16), n=size(2), batch=2, alpha=real("2"),
         beta=real("-1"), layout=((0, 3, 0), (1, 0, 2), (0, 0, 0)))
    seeds["gemm-float"] = s
    s = Seed().buffer(11).buffer(11).buffer(11)  # 8192 doubles each
    gemm(s, type=1, precision=2, ta=1, m=size(37), n=size(7), k=size(16), alpha=real("-1"),
         layout=((3, 0, 2), (0, 0, 0), (2, 0, 1)), fill=3)
    seeds["gemm-double"] = s
    s = Seed().context().buffer(10).buffer(10).buffer(10)
    s.buffer(10, flags_how=3).buffer(10, flags_how=2).buffer(10, context=1)  # 4, 2: read-, write-only
    for change in [dict(type=3), dict(precision=4), dict(precision=3), dict(ta=2),
                   dict(m=size(0)), dict(batch=4), dict(batch=6), dict(m=size(64), k=size(64)),
                   dict(layout=((4, 0, 0), (0, 0, 0), (0, 0, 0))),  # lda < k
                   dict(layout=((0, 0, 0), (0, 0, 0), (0, 0, 5))),  # offset_c = elements
                   dict(layout=((0, 0, 0), (0, 0, 0), (0, 0, 6))),  # offset_c = max
                   dict(layout=((0, 0, 4), (0, 0, 0), (0, 0, 0))),  # A one past its buffer
                   dict(batch=2, layout=((0, 7, 0), (0, 0, 0), (0, 0, 0))),  # overflows
                   dict(layout=((6, 0, 0), (0, 0, 0), (0, 0, 0))),  # lda = max
                   dict(c_how=0), dict(c_how=1),  # C is A's or B's matrix
                   dict(batch=1, layout=((0, 0, 0), (0, 0, 0), (0, 5, 0))),  # C's matrices meet
                   dict(c=(0, 3)), dict(a=(0, 4)), dict(b=(0, 5)),  # kinds; another context
                   dict(a=(6, 0)), dict(c=(3, 0)),  # handle 0; a context as C
                   dict(alpha=real("nan"), beta=real("inf")), dict(type=1)]:
        gemm(s, **change)
    seeds["gemm-refusals"] = s

    # CLMatMul: products that verify (float, double), then a NULL array, A and B one buffer, C
    # in A's buffer, C too small.
    s = Seed().buffer(10).buffer(10).buffer(10)  # 4096 bytes each
    mat_mul(s, m=size(16), n=size(16), k=size(16))
    mat_mul(s, type=1, m=size(7), n=size(37), k=size(7))
    mat_mul(s, null_one=0)
    mat_mul(s, null_one=2)
    mat_mul(s, b=(0, 0))
    mat_mul(s, c_how=0)
    mat_mul(s, m=size(64), n=size(64))
    seeds["matmul"] = s

    for name, seed in seeds.items():
        (out / f"seed-{name}").write_bytes(bytes(seed.data))
    print(f"wrote {len(seeds)} seeds to {out}")


if __name__ == "__main__":
    main()
