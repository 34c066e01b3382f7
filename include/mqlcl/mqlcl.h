/*
 * mqlcl.h - MQL5's OpenCL API as a plain C ABI.
 *
 * The 19 functions of MQL5's OpenCL group (plus CLProgramCreateEx, CLGetLastError and
 * CLResetLastError) with MQL5's names, parameter order, int handles, failure values and
 * ERR_OPENCL_* codes. Where C needs what MQL5 knows implicitly (array length, element size,
 * string capacity) the extra parameter comes last. docs/api.md is the full reference.
 *
 * Conventions that hold for every export:
 *  - Nothing is thrown, nothing calls exit(), and no write ever goes past a caller's stated
 *    capacity or a buffer's size.
 *  - A failure returns the function's MQL5 failure value (-1, 0 or false) and records an
 *    MQLCL_ERR_* code as this thread's last error (CLGetLastError). Successes leave it alone.
 *  - Every function may be called from any thread; handles are shared by all threads (by all
 *    threads acting for the same owner, for programs that declare one: CLOwnerCreate).
 *  - Strings are UTF-16 (char16_t), zero-terminated, as MQL5 passes `string`. Output strings
 *    are written into caller memory of `capacity` char16_t units, terminator included.
 */
#ifndef MQLCL_MQLCL_H
#define MQLCL_MQLCL_H

#include <stdint.h>
#ifndef __cplusplus
#include <uchar.h> /* char16_t for C */
#endif

#if defined(_WIN32)
#if defined(MQLCL_BUILDING)
#define MQLCL_API __declspec(dllexport)
#else
#define MQLCL_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define MQLCL_API __attribute__((visibility("default")))
#else
#define MQLCL_API
#endif

#define MQLCL_VERSION_MAJOR 1
#define MQLCL_VERSION_MINOR 0
#define MQLCL_VERSION_PATCH 0

/* ---- Failure value of the handle-returning functions (MQL5's INVALID_HANDLE) ---------------- */
#define MQLCL_INVALID_HANDLE (-1)

/* ---- Error codes (CLGetLastError): MQL5's own numbers -----------------------------------------
 */
#define MQLCL_ERR_SUCCESS 0
#define MQLCL_ERR_INTERNAL_ERROR 4001
#define MQLCL_ERR_INVALID_PARAMETER 4003 /* NULL pointer, bad enum value, malformed size */
#define MQLCL_ERR_NOT_ENOUGH_MEMORY 4004
#define MQLCL_ERR_SMALL_ARRAY 5052    /* output capacity too small (docs/api.md: what is written) */
#define MQLCL_ERR_ZEROSIZE_ARRAY 5053 /* element count or element size of zero */
#define MQLCL_ERR_OPENCL_NOT_SUPPORTED 5100 /* no OpenCL library, or no platform at all */
#define MQLCL_ERR_OPENCL_INTERNAL 5101
#define MQLCL_ERR_OPENCL_INVALID_HANDLE 5102 /* bad, stale, freed, forged or wrong-type handle */
#define MQLCL_ERR_OPENCL_CONTEXT_CREATE 5103
#define MQLCL_ERR_OPENCL_QUEUE_CREATE 5104
#define MQLCL_ERR_OPENCL_PROGRAM_CREATE 5105 /* build failure; CL_ERROR_DESCRIPTION has the log */
#define MQLCL_ERR_OPENCL_TOO_LONG_KERNEL_NAME 5106 /* more than 127 UTF-16 units */
#define MQLCL_ERR_OPENCL_KERNEL_CREATE 5107
#define MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER 5108
#define MQLCL_ERR_OPENCL_EXECUTE 5109
#define MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE 5110
#define MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET 5111
#define MQLCL_ERR_OPENCL_BUFFER_CREATE 5112
#define MQLCL_ERR_OPENCL_TOO_MANY_OBJECTS 5113
#define MQLCL_ERR_OPENCL_SELECTDEVICE 5114
/* mqlcl's own, in MQL5's user range (ERR_USER_ERROR_FIRST 65536 + n: SetUserError(n) in MQL5) */
#define MQLCL_ERR_OPENCL_NOT_OWNER 65537 /* another owner's handle; an owner that is not live */
#define MQLCL_ERR_OPENCL_READ_NOT_STARTED 65538 /* no CLBufferReadStart pending on the buffer */
#define MQLCL_ERR_OPENCL_DEVICE_LOST                                                               \
  65539 /* the device faulted: docs/api.md, "A device that faults" */

/* ---- CLHandleType results (ENUM_OPENCL_HANDLE_TYPE) --------------------------------------------
 */
#define MQLCL_OPENCL_INVALID 0
#define MQLCL_OPENCL_CONTEXT 1
#define MQLCL_OPENCL_PROGRAM 2
#define MQLCL_OPENCL_KERNEL 3
#define MQLCL_OPENCL_BUFFER 4

/* ---- CLContextCreate device selectors (device ordinals are 0, 1, 2, ...) -----------------------
 */
#define MQLCL_USE_ANY (-1)             /* the first device in ordinal order (GPUs come first) */
#define MQLCL_USE_CPU_ONLY (-2)        /* the first CPU device */
#define MQLCL_USE_GPU_ONLY (-3)        /* the first GPU or accelerator */
#define MQLCL_USE_GPU_DOUBLE_ONLY (-4) /* the first GPU or accelerator with cl_khr_fp64 */
/* Beyond MQL5: the device of its kind with the fewest live processes on this machine, kept for
 * the process's life (docs/api.md, "Several GPUs"): tester agents spread over the GPUs. */
#define MQLCL_USE_SPREAD (-100)

/* ---- CLBufferCreate flags: the Khronos bit values -----------------------------------------------
 */
#define MQLCL_MEM_READ_WRITE 1
#define MQLCL_MEM_WRITE_ONLY 2
#define MQLCL_MEM_READ_ONLY 4
#define MQLCL_MEM_ALLOC_HOST_PTR 16

/* ---- CLExecutionStatus results ------------------------------------------------------------------
 */
#define MQLCL_CL_COMPLETE 0
#define MQLCL_CL_RUNNING 1
#define MQLCL_CL_SUBMITTED 2
#define MQLCL_CL_QUEUED 3

/* ---- CLGetInfoInteger properties ----------------------------------------------------------------
 * "device" properties take a device ordinal or any handle (its context's device).
 * 0-12 are MQL5's ENUM_OPENCL_PROPERTY_INTEGER; 100 and up are mqlcl's additions. */
#define MQLCL_CL_DEVICE_COUNT 0 /* handle ignored */
#define MQLCL_CL_DEVICE_TYPE 1  /* Khronos bits: CPU 2, GPU 4, ACCELERATOR 8, ... */
#define MQLCL_CL_DEVICE_VENDOR_ID 2
#define MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS 3
#define MQLCL_CL_DEVICE_MAX_CLOCK_FREQUENCY 4 /* MHz */
#define MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE 5     /* bytes */
#define MQLCL_CL_DEVICE_LOCAL_MEM_SIZE 6      /* bytes */
#define MQLCL_CL_BUFFER_SIZE 7                /* buffer handle; bytes */
#define MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE 8
#define MQLCL_CL_KERNEL_WORK_GROUP_SIZE 9   /* kernel handle */
#define MQLCL_CL_KERNEL_LOCAL_MEM_SIZE 10   /* kernel handle; bytes, __local args included */
#define MQLCL_CL_KERNEL_PRIVATE_MEM_SIZE 11 /* kernel handle; bytes */
#define MQLCL_CL_LAST_ERROR 12              /* handle ignored; this thread's last raw cl_int */

#define MQLCL_CL_KERNEL_EXECUTION_TIME 100 /* kernel; ns of its last launch (waits for it) */
#define MQLCL_CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE 101 /* kernel */
#define MQLCL_CL_KERNEL_NUM_ARGS 102                           /* kernel */
#define MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT 103
#define MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE 104
#define MQLCL_CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT 105
#define MQLCL_CL_DEVICE_LOCAL_MEM_TYPE 106 /* 1 = dedicated (CL_LOCAL), 2 = global (CL_GLOBAL) */
#define MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0 107
#define MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_1 108
#define MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_2 109
#define MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE 110
#define MQLCL_CL_DEVICE_DOUBLE_SUPPORT 111 /* 1 when the device has cl_khr_fp64 */
#define MQLCL_CL_DEVICE_GLOBAL_MEM_CACHE_SIZE 112
#define MQLCL_CL_DEVICE_ORDINAL 113                /* any handle: the ordinal of its device */
#define MQLCL_CL_DEVICE_PLATFORM_INDEX 114         /* the platform the device belongs to */
#define MQLCL_CL_PLATFORM_COUNT 115                /* handle ignored */
#define MQLCL_CL_BUFFER_FLAGS 116                  /* buffer handle: the MQLCL_MEM_* flags */
#define MQLCL_CL_OBJECT_COUNT 117                  /* handle ignored: live handles of all types */
#define MQLCL_CL_PROFILING_TIMER_RESOLUTION 118    /* ns */
#define MQLCL_CL_LAST_ERROR_DESCRIPTION_LENGTH 119 /* UTF-16 units, terminator excluded */
#define MQLCL_CL_GEMM_EXECUTION_TIME 120 /* context; ns of its last CLGemm (waits for it) */
#define MQLCL_CL_PROGRAM_FROM_CACHE 121  /* program; 1 when loaded from the program cache */
#define MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE 122 /* bytes a kernel's __local arrays may take */

/* ---- CLGetInfoString properties -----------------------------------------------------------------
 * 0-13 are MQL5's ENUM_OPENCL_PROPERTY_STRING (with CL_PLATFORM_NAME); 100 and up are mqlcl's. */
#define MQLCL_CL_PLATFORM_PROFILE 0
#define MQLCL_CL_PLATFORM_VERSION 1
#define MQLCL_CL_PLATFORM_VENDOR 2
#define MQLCL_CL_PLATFORM_EXTENSIONS 3
#define MQLCL_CL_DEVICE_NAME 4
#define MQLCL_CL_DEVICE_VENDOR 5
#define MQLCL_CL_DRIVER_VERSION 6
#define MQLCL_CL_DEVICE_PROFILE 7
#define MQLCL_CL_DEVICE_VERSION 8
#define MQLCL_CL_DEVICE_EXTENSIONS 9
#define MQLCL_CL_DEVICE_BUILT_IN_KERNELS 10
#define MQLCL_CL_DEVICE_OPENCL_C_VERSION 11
#define MQLCL_CL_ERROR_DESCRIPTION 12 /* handle = a cl_int code, or MQLCL_CL_LAST_ERROR */
#define MQLCL_CL_PLATFORM_NAME 13

#define MQLCL_CL_DEVICE_LIST 100           /* handle ignored: one line per device ordinal */
#define MQLCL_CL_PROGRAM_BUILD_LOG 101     /* program handle */
#define MQLCL_CL_PROGRAM_BUILD_OPTIONS 102 /* program handle: the options actually used */
#define MQLCL_CL_KERNEL_FUNCTION_NAME 103  /* kernel handle */
#define MQLCL_CL_BRIDGE_VERSION 104        /* handle ignored: "mqlcl 1.0.0" */
#define MQLCL_CL_GEMM_PLAN 105   /* context: its last CLGemm's kernel file, parameters and origin */
#define MQLCL_CL_GEMM_PASSES 106 /* context: each kernel its last CLGemm ran, and its time */
#define MQLCL_CL_LAST_TRANSFER                                                                     \
  107 /* context: its last CLBufferWrite/Read, and where its time went */

/* ---- CLBufferTensorMap element types ------------------------------------------------------------
 */
#define MQLCL_TENSOR_FLOAT32 0 /* 4-byte floats, copied as they are */
#define MQLCL_TENSOR_TF32 1    /* 4-byte floats, typed as the tensor cores' TF32 */

/* ---- CLGemm element types and precisions -------------------------------------------------------
 */
#define MQLCL_GEMM_FLOAT 0    /* 4-byte floats */
#define MQLCL_GEMM_DOUBLE 1   /* 8-byte doubles (MQL5's matrix); needs cl_khr_fp64 */
#define MQLCL_GEMM_EXACT 0    /* the element type's own multiply-adds: FP32 (FP64 for double) */
#define MQLCL_GEMM_ACCURATE 1 /* max relative error <= 1e-5 of fp64's: the fastest such product */
#define MQLCL_GEMM_TF32 2     /* tensor-core TF32, errors near 1e-3; 5100 where not offered */
#define MQLCL_GEMM_FASTEST 3  /* the fastest product the device offers, whatever its accuracy */

/* Longest kernel name CLKernelCreate accepts, in UTF-16 units (MQL5's limit). */
#define MQLCL_KERNEL_NAME_MAX 127

#ifdef __cplusplus
extern "C" {
#endif

/* Handles and information */
MQLCL_API int32_t CLHandleType(int32_t handle);
MQLCL_API int64_t CLGetInfoInteger(int32_t handle, int32_t property);
MQLCL_API int32_t CLGetInfoString(int32_t handle, int32_t property, char16_t *value,
                                  uint32_t capacity);

/* Context: one device, one in-order queue with profiling enabled */
MQLCL_API int32_t CLContextCreate(int32_t device);
MQLCL_API void CLContextFree(int32_t context);
MQLCL_API int32_t CLGetDeviceInfo(int32_t handle, int32_t property_id, uint8_t *data,
                                  uint32_t *size, uint32_t capacity);

/* Programs and kernels */
MQLCL_API int32_t CLProgramCreate(int32_t context, const char16_t *source);
MQLCL_API int32_t CLProgramCreateEx(int32_t context, const char16_t *source,
                                    const char16_t *build_options, char16_t *build_log,
                                    uint32_t log_capacity);
MQLCL_API void CLProgramFree(int32_t program);
MQLCL_API int32_t CLKernelCreate(int32_t program, const char16_t *kernel_name);
MQLCL_API void CLKernelFree(int32_t kernel);
MQLCL_API int32_t CLSetKernelArg(int32_t kernel, uint32_t arg_index, const void *value,
                                 uint32_t size);
MQLCL_API int32_t CLSetKernelArgMem(int32_t kernel, uint32_t arg_index, int32_t buffer);
MQLCL_API int32_t CLSetKernelArgMemLocal(int32_t kernel, uint32_t arg_index,
                                         uint64_t local_mem_size);

/* Buffers: buffer_offset in bytes; data_offset and data_count in elements of element_size */
MQLCL_API int32_t CLBufferCreate(int32_t context, uint32_t size, uint32_t flags);
MQLCL_API void CLBufferFree(int32_t buffer);
MQLCL_API uint32_t CLBufferWrite(int32_t buffer, const void *data, uint32_t buffer_offset,
                                 uint32_t data_offset, uint32_t data_count, uint32_t element_size);
MQLCL_API uint32_t CLBufferRead(int32_t buffer, void *data, uint32_t buffer_offset,
                                uint32_t data_offset, uint32_t data_count, uint32_t element_size);

/* Beyond MQL5: the same with 64-bit sizes, offsets and counts, for buffers of 4 GiB and more
 * (up to the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE). Same failure values and codes; a size,
 * offset or count whose bytes overflow 64 bits or the buffer is refused (docs/errors.md). */
MQLCL_API int32_t CLBufferCreate64(int32_t context, uint64_t size, uint32_t flags);
MQLCL_API uint64_t CLBufferWrite64(int32_t buffer, const void *data, uint64_t buffer_offset,
                                   uint64_t data_offset, uint64_t data_count,
                                   uint32_t element_size);
MQLCL_API uint64_t CLBufferRead64(int32_t buffer, void *data, uint64_t buffer_offset,
                                  uint64_t data_offset, uint64_t data_count, uint32_t element_size);

/* Beyond MQL5 (NVIDIA compute capability 9.0+): writes into `map_buffer` at `map_offset` (a
 * multiple of 64) the 128-byte tensor map of `buffer` from byte `buffer_offset` as a row-major
 * matrix of `rows` x `cols` 4-byte elements, rows `row_pitch` bytes apart, for kernels that copy
 * box_rows x box_cols tiles of it into local memory with cp.async.bulk.tensor (zeros past its
 * edges), swizzled by `swizzle` bytes (0, 32, 64, 128). The map holds the buffer's address: it is
 * valid while `buffer` lives. Returns 1, or 0 (ERR_OPENCL_NOT_SUPPORTED elsewhere). */
MQLCL_API int32_t CLBufferTensorMap(int32_t map_buffer, uint32_t map_offset, int32_t buffer,
                                    uint32_t buffer_offset, uint32_t rows, uint32_t cols,
                                    uint32_t row_pitch, uint32_t box_rows, uint32_t box_cols,
                                    uint32_t swizzle, int32_t element_type);

/* Execution: CLExecute only enqueues (and flushes); CLBufferRead waits */
MQLCL_API int32_t CLExecute(int32_t kernel, uint32_t work_dim, const uint32_t *global_work_offset,
                            const uint32_t *global_work_size, const uint32_t *local_work_size);
MQLCL_API int32_t CLExecutionStatus(int32_t kernel);

/* Beyond MQL5: C = alpha * op(A) * op(B) + beta * C for `batch` products, on buffers of one
 * context, row-major. op(A) is m x k (A stored k x m when transpose_a), op(B) k x n (B stored
 * n x k when transpose_b), C m x n. Offsets, leading dimensions and strides count elements;
 * ld 0 means the stored width; the batch's matrices start stride_* apart (0 shares A or B).
 * C is not read when beta is 0. Enqueues like CLExecute (CLBufferRead waits); the kernels are
 * built into the library, once per shape and context. Returns 1, or 0 (docs/errors.md). */
MQLCL_API int32_t CLGemm(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c, int32_t element_type,
                         int32_t precision, int32_t transpose_a, int32_t transpose_b, uint32_t m,
                         uint32_t n, uint32_t k, double alpha, double beta, uint64_t offset_a,
                         uint32_t lda, uint64_t offset_b, uint32_t ldb, uint64_t offset_c,
                         uint32_t ldc, uint32_t batch, uint64_t stride_a, uint64_t stride_b,
                         uint64_t stride_c);

/* Beyond MQL5: c = a * b from host arrays to a host array (MQL5's c = a.MatMul(b)), through
 * three buffers of one context: a m x k, b k x n, c m x n, packed row-major, in each buffer from
 * its start; element_type and precision as CLGemm's. Writes a and b, runs the product and reads
 * c, its transfers overlapping the product where they are staged (docs/api.md). Returns once c
 * holds the product: 1, or 0 (docs/errors.md; c may then hold part of it). */
MQLCL_API int32_t CLMatMul(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c,
                           int32_t element_type, int32_t precision, const void *a, const void *b,
                           void *c, uint32_t m, uint32_t n, uint32_t k);

/* Beyond MQL5: owners. CLOwnerCreate makes an owner (a random id > 0) and has the calling thread
 * act for it; handles created while a thread acts for an owner are that owner's, and only
 * threads acting for it can use or free them (MQLCL_ERR_OPENCL_NOT_OWNER otherwise). A thread that
 * never selects an owner acts for none (0): nothing changes for it. CLOwnerSelect(0) returns to
 * none. CLOwnerFree frees every handle of the owner (children first) and the owner itself:
 * the number of handles freed, or -1. */
MQLCL_API int32_t CLOwnerCreate(void);
MQLCL_API int32_t CLOwnerSelect(int32_t owner);
MQLCL_API int32_t CLOwnerFree(int32_t owner);

/* Beyond MQL5: non-blocking reads. CLBufferReadStart enqueues a read of `size` bytes from
 * `buffer_offset` into memory of the bridge's own and returns at once (1, or 0); one read per
 * buffer at a time. CLBufferReadStatus polls it like CLExecutionStatus (MQLCL_CL_COMPLETE ...
 * MQLCL_CL_QUEUED, or -1). CLBufferReadTake waits for it if needed, copies `data_count` elements
 * of `element_size` bytes (at most the bytes started) into data[data_offset ...] and ends the
 * read: elements copied, or 0. */
MQLCL_API int32_t CLBufferReadStart(int32_t buffer, uint32_t buffer_offset, uint32_t size);
MQLCL_API int32_t CLBufferReadStatus(int32_t buffer);
MQLCL_API uint32_t CLBufferReadTake(int32_t buffer, void *data, uint32_t data_offset,
                                    uint32_t data_count, uint32_t element_size);

/* This thread's last failure */
MQLCL_API int32_t CLGetLastError(void);
MQLCL_API void CLResetLastError(void);
/* Beyond MQL5: records a failure of the caller's own as this thread's last error, as MQL5's
 * SetUserError does for GetLastError: for wrappers that refuse their input before any other call,
 * so that CLGetLastError and CL_LAST_ERROR's description report it as they report the bridge's
 * own. `code` 0 resets (CLResetLastError); a negative code is refused with 4003. `description`
 * (UTF-16, NULL for none) is what CL_ERROR_DESCRIPTION of CL_LAST_ERROR then gives. */
MQLCL_API void CLSetLastError(int32_t code, const char16_t *description);

#ifdef __cplusplus
}
#endif

#endif /* MQLCL_MQLCL_H */
