// shim.c: dlopen'ed CUDA driver and NVRTC entry points (see shim.h).
#include "shim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *cu_lib, *nvrtc_lib;
static char nvrtc_loaded_path[1024];

#define CU_FN(ret, name, args) typedef ret(*t_##name) args; static t_##name p_##name;
CU_FN(CUresult, cuInit, (unsigned))
CU_FN(CUresult, cuDriverGetVersion, (int *))
CU_FN(CUresult, cuGetErrorName, (CUresult, const char **))
CU_FN(CUresult, cuDeviceGetCount, (int *))
CU_FN(CUresult, cuDeviceGet, (CUdevice *, int))
CU_FN(CUresult, cuDeviceGetName, (char *, int, CUdevice))
CU_FN(CUresult, cuDeviceGetAttribute, (int *, int, CUdevice))
CU_FN(CUresult, cuDeviceTotalMem_v2, (size_t *, CUdevice))
CU_FN(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))
CU_FN(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))
CU_FN(CUresult, cuCtxSetCurrent, (CUcontext))
CU_FN(CUresult, cuMemGetInfo_v2, (size_t *, size_t *))
CU_FN(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))
CU_FN(CUresult, cuMemFree_v2, (CUdeviceptr))
CU_FN(CUresult, cuMemHostAlloc, (void **, size_t, unsigned))
CU_FN(CUresult, cuMemFreeHost, (void *))
CU_FN(CUresult, cuStreamCreate, (CUstream *, unsigned))
CU_FN(CUresult, cuStreamDestroy_v2, (CUstream))
CU_FN(CUresult, cuStreamSynchronize, (CUstream))
CU_FN(CUresult, cuStreamWaitEvent, (CUstream, CUevent, unsigned))
CU_FN(CUresult, cuEventCreate, (CUevent *, unsigned))
CU_FN(CUresult, cuEventDestroy_v2, (CUevent))
CU_FN(CUresult, cuEventRecord, (CUevent, CUstream))
CU_FN(CUresult, cuEventSynchronize, (CUevent))
CU_FN(CUresult, cuEventElapsedTime, (float *, CUevent, CUevent))
CU_FN(CUresult, cuModuleLoadData, (CUmodule *, const void *))
CU_FN(CUresult, cuModuleUnload, (CUmodule))
CU_FN(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))
CU_FN(CUresult, cuModuleGetGlobal_v2, (CUdeviceptr *, size_t *, CUmodule, const char *))
CU_FN(CUresult, cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *, CUfunction, int, size_t))
CU_FN(CUresult, cuFuncSetAttribute, (CUfunction, int, int))
CU_FN(CUresult, cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, CUstream, void **, void **))
CU_FN(CUresult, cuMemsetD8Async, (CUdeviceptr, unsigned char, size_t, CUstream))
CU_FN(CUresult, cuMemcpyHtoDAsync_v2, (CUdeviceptr, const void *, size_t, CUstream))
CU_FN(CUresult, cuMemcpyDtoHAsync_v2, (void *, CUdeviceptr, size_t, CUstream))
CU_FN(CUresult, cuMemcpyDtoDAsync_v2, (CUdeviceptr, CUdeviceptr, size_t, CUstream))

CU_FN(int, nvrtcVersion, (int *, int *))
CU_FN(const char *, nvrtcGetErrorString, (int))
CU_FN(int, nvrtcCreateProgram, (nvrtcProgram *, const char *, const char *, int,
                                const char *const *, const char *const *))
CU_FN(int, nvrtcCompileProgram, (nvrtcProgram, int, const char *const *))
CU_FN(int, nvrtcGetProgramLogSize, (nvrtcProgram, size_t *))
CU_FN(int, nvrtcGetProgramLog, (nvrtcProgram, char *))
CU_FN(int, nvrtcGetCUBINSize, (nvrtcProgram, size_t *))
CU_FN(int, nvrtcGetCUBIN, (nvrtcProgram, char *))
CU_FN(int, nvrtcDestroyProgram, (nvrtcProgram *))

static char load_err[1200];

#define LOAD(lib, name)                                                          \
    p_##name = (t_##name)dlsym(lib, #name);                                       \
    if (!p_##name) {                                                             \
        snprintf(load_err, sizeof load_err, "symbol %s missing from library", #name); \
        return load_err;                                                         \
    }

const char *rg_load_cuda(void) {
    if (cu_lib) return NULL;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(load_err, sizeof load_err, "cannot load libcuda.so.1: %s", e ? e : "unknown");
        return load_err;
    }
    LOAD(lib, cuInit) LOAD(lib, cuDriverGetVersion) LOAD(lib, cuGetErrorName)
    LOAD(lib, cuDeviceGetCount) LOAD(lib, cuDeviceGet) LOAD(lib, cuDeviceGetName)
    LOAD(lib, cuDeviceGetAttribute) LOAD(lib, cuDeviceTotalMem_v2)
    LOAD(lib, cuDevicePrimaryCtxRetain) LOAD(lib, cuDevicePrimaryCtxRelease_v2)
    LOAD(lib, cuCtxSetCurrent) LOAD(lib, cuMemGetInfo_v2) LOAD(lib, cuMemAlloc_v2)
    LOAD(lib, cuMemFree_v2) LOAD(lib, cuMemHostAlloc) LOAD(lib, cuMemFreeHost)
    LOAD(lib, cuStreamCreate) LOAD(lib, cuStreamDestroy_v2) LOAD(lib, cuStreamSynchronize)
    LOAD(lib, cuStreamWaitEvent)
    LOAD(lib, cuEventCreate) LOAD(lib, cuEventDestroy_v2) LOAD(lib, cuEventRecord)
    LOAD(lib, cuEventSynchronize) LOAD(lib, cuEventElapsedTime) LOAD(lib, cuModuleLoadData)
    LOAD(lib, cuModuleUnload) LOAD(lib, cuModuleGetFunction) LOAD(lib, cuModuleGetGlobal_v2) LOAD(lib, cuLaunchKernel)
    LOAD(lib, cuOccupancyMaxActiveBlocksPerMultiprocessor) LOAD(lib, cuFuncSetAttribute)
    LOAD(lib, cuMemsetD8Async) LOAD(lib, cuMemcpyHtoDAsync_v2) LOAD(lib, cuMemcpyDtoHAsync_v2)
    LOAD(lib, cuMemcpyDtoDAsync_v2)
    cu_lib = lib;
    return NULL;
}

const char *rg_load_nvrtc(const char *path) {
    if (nvrtc_lib) return NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(load_err, sizeof load_err, "%s", e ? e : "dlopen failed");
        return load_err;
    }
    LOAD(lib, nvrtcVersion) LOAD(lib, nvrtcGetErrorString) LOAD(lib, nvrtcCreateProgram)
    LOAD(lib, nvrtcCompileProgram) LOAD(lib, nvrtcGetProgramLogSize) LOAD(lib, nvrtcGetProgramLog)
    LOAD(lib, nvrtcGetCUBINSize) LOAD(lib, nvrtcGetCUBIN) LOAD(lib, nvrtcDestroyProgram)
    snprintf(nvrtc_loaded_path, sizeof nvrtc_loaded_path, "%s", path);
    nvrtc_lib = lib;
    return NULL;
}

const char *rg_nvrtc_path(void) { return nvrtc_loaded_path; }

const char *rg_cu_error_name(CUresult r) {
    const char *s = NULL;
    if (p_cuGetErrorName && p_cuGetErrorName(r, &s) == 0 && s) return s;
    return "CUDA_ERROR_UNKNOWN_CODE";
}

const char *rg_nvrtc_error_string(int r) {
    const char *s = p_nvrtcGetErrorString ? p_nvrtcGetErrorString(r) : NULL;
    return s ? s : "NVRTC_ERROR_UNKNOWN_CODE";
}

#define CUR(ctx) do { CUresult _r = p_cuCtxSetCurrent(ctx); if (_r) return _r; } while (0)

CUresult rg_init(void) { return p_cuInit(0); }
CUresult rg_driver_version(int *v) { return p_cuDriverGetVersion(v); }
CUresult rg_device_count(int *n) { return p_cuDeviceGetCount(n); }
CUresult rg_device_get(CUdevice *d, int o) { return p_cuDeviceGet(d, o); }
CUresult rg_device_name(char *b, int l, CUdevice d) { return p_cuDeviceGetName(b, l, d); }
CUresult rg_device_attr(int *v, int a, CUdevice d) { return p_cuDeviceGetAttribute(v, a, d); }
CUresult rg_device_total_mem(size_t *b, CUdevice d) { return p_cuDeviceTotalMem_v2(b, d); }
CUresult rg_primary_ctx_retain(CUcontext *c, CUdevice d) { return p_cuDevicePrimaryCtxRetain(c, d); }
CUresult rg_primary_ctx_release(CUdevice d) { return p_cuDevicePrimaryCtxRelease_v2(d); }
CUresult rg_mem_info(CUcontext c, size_t *f, size_t *t) { CUR(c); return p_cuMemGetInfo_v2(f, t); }
CUresult rg_mem_alloc(CUcontext c, CUdeviceptr *p, size_t n) { CUR(c); return p_cuMemAlloc_v2(p, n); }
CUresult rg_mem_free(CUcontext c, CUdeviceptr p) { CUR(c); return p_cuMemFree_v2(p); }
CUresult rg_host_alloc(CUcontext c, void **p, size_t n) { CUR(c); return p_cuMemHostAlloc(p, n, 0); }
CUresult rg_host_free(CUcontext c, void *p) { CUR(c); return p_cuMemFreeHost(p); }
CUresult rg_stream_create(CUcontext c, CUstream *s) { CUR(c); return p_cuStreamCreate(s, 1); }
CUresult rg_stream_destroy(CUcontext c, CUstream s) { CUR(c); return p_cuStreamDestroy_v2(s); }
CUresult rg_stream_sync(CUcontext c, CUstream s) { CUR(c); return p_cuStreamSynchronize(s); }
CUresult rg_event_create(CUcontext c, CUevent *e) { CUR(c); return p_cuEventCreate(e, 0); }
// rg_event_create_untimed: an event for ordering alone (CU_EVENT_DISABLE_TIMING), cheaper to record and wait on.
CUresult rg_event_create_untimed(CUcontext c, CUevent *e) { CUR(c); return p_cuEventCreate(e, 2); }
CUresult rg_stream_wait_event(CUcontext c, CUstream s, CUevent e) { CUR(c); return p_cuStreamWaitEvent(s, e, 0); }
CUresult rg_event_destroy(CUcontext c, CUevent e) { CUR(c); return p_cuEventDestroy_v2(e); }
CUresult rg_event_record(CUcontext c, CUevent e, CUstream s) { CUR(c); return p_cuEventRecord(e, s); }
CUresult rg_event_elapsed(CUcontext c, float *ms, CUevent a, CUevent b) {
    CUR(c);
    CUresult r = p_cuEventSynchronize(b);
    if (r) return r;
    return p_cuEventElapsedTime(ms, a, b);
}
CUresult rg_module_load(CUcontext c, CUmodule *m, const void *img) { CUR(c); return p_cuModuleLoadData(m, img); }
CUresult rg_module_unload(CUcontext c, CUmodule m) { CUR(c); return p_cuModuleUnload(m); }
CUresult rg_module_function(CUcontext c, CUfunction *f, CUmodule m, const char *n) {
    CUR(c);
    return p_cuModuleGetFunction(f, m, n);
}
CUresult rg_module_global(CUcontext c, CUdeviceptr *p, size_t *size, CUmodule m, const char *n) {
    CUR(c);
    return p_cuModuleGetGlobal_v2(p, size, m, n);
}
CUresult rg_resident_blocks(CUcontext c, int *n, CUfunction f, int block, size_t shmem) {
    CUR(c);
    return p_cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, shmem);
}
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: a launch may ask for
// more than the default 48 KiB of dynamic shared memory up to this.
CUresult rg_func_max_shared(CUcontext c, CUfunction f, int bytes) {
    CUR(c);
    return p_cuFuncSetAttribute(f, 8, bytes);
}
CUresult rg_launch(CUcontext c, CUfunction f, unsigned grid, unsigned block, unsigned shmem,
                   CUstream s, void *argblock) {
    CUR(c);
    void *params[1] = {argblock};
    return p_cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, s, params, NULL);
}
CUresult rg_memset8(CUcontext c, CUdeviceptr p, unsigned char v, size_t n, CUstream s) {
    CUR(c);
    return p_cuMemsetD8Async(p, v, n, s);
}
CUresult rg_copy_dtod(CUcontext c, CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
    CUR(c);
    return p_cuMemcpyDtoDAsync_v2(d, src, n, s);
}
// rg_copy_htod_pinned queues a copy from pinned host memory (spill.go):
// the DMA engine reads it directly, without staging and without waiting.
CUresult rg_copy_htod_pinned(CUcontext c, CUdeviceptr d, const void *src, size_t n, CUstream s) {
    CUR(c);
    return p_cuMemcpyHtoDAsync_v2(d, src, n, s);
}
// rg_copy_dtoh_pinned copies into pinned host memory and waits for it.
CUresult rg_copy_dtoh_pinned(CUcontext c, void *dst, CUdeviceptr src, size_t n, CUstream s) {
    CUR(c);
    CUresult r = p_cuMemcpyDtoHAsync_v2(dst, src, n, s);
    if (r) return r;
    return p_cuStreamSynchronize(s);
}

// rg_upload_small copies n bytes through one slot of the small-upload ring
// (transfer.go) without waiting for the copy: it waits only until the
// slot's previous copy has been read (its event), then queues this one.
CUresult rg_upload_small(CUcontext c, CUstream s, CUdeviceptr dst, const void *src, size_t n,
                         void *pin, CUevent ev, const char **stage) {
    CUR(c);
    CUresult r;
    *stage = "cuEventSynchronize";
    if ((r = p_cuEventSynchronize(ev))) return r;
    memcpy(pin, src, n);
    *stage = "cuMemcpyHtoDAsync";
    if ((r = p_cuMemcpyHtoDAsync_v2(dst, pin, n, s))) return r;
    *stage = "cuEventRecord";
    return p_cuEventRecord(ev, s);
}

// A copy into a staging buffer is the host's share of an upload; one
// thread copies a few GB/s, less than the link carries (a table column
// from the column store: nothing else to do but this copy). Large copies
// are split over threads.
enum { RG_COPY_THREADS = 8, RG_COPY_MIN_PART = 1 << 20 };

typedef struct { char *dst; const char *src; size_t n; } rg_copy_part;

static void *rg_copy_run(void *arg) {
    rg_copy_part *p = arg;
    memcpy(p->dst, p->src, p->n);
    return NULL;
}

void rg_parallel_copy(void *dst, const void *src, size_t n) {
    size_t parts = n / RG_COPY_MIN_PART;
    if (parts > RG_COPY_THREADS) parts = RG_COPY_THREADS;
    if (parts < 2) {
        memcpy(dst, src, n);
        return;
    }
    rg_copy_part part[RG_COPY_THREADS];
    pthread_t th[RG_COPY_THREADS];
    int started[RG_COPY_THREADS] = {0};
    // Each part a whole number of cache lines, and parts * each >= n: the
    // share is rounded up before the alignment (n / parts rounded down, when
    // already aligned, dropped the last n % parts bytes: TPC-H SF100's
    // p_name lost its last row's tail, bench/results/2026-11-28-h200-tpch-sf100-v34.md).
    size_t each = ((n + parts - 1) / parts + 63) & ~(size_t)63;
    for (size_t i = 0, off = 0; i < parts; i++, off += each) {
        part[i].dst = (char *)dst + off;
        part[i].src = (const char *)src + off;
        part[i].n = off >= n ? 0 : (n - off < each ? n - off : each);
    }
    // Part 0 on this thread; a thread that cannot start leaves its part
    // to this one too.
    for (size_t i = 1; i < parts; i++) {
        started[i] = pthread_create(&th[i], NULL, rg_copy_run, &part[i]) == 0;
    }
    rg_copy_run(&part[0]);
    for (size_t i = 1; i < parts; i++) {
        if (started[i]) {
            pthread_join(th[i], NULL);
        } else {
            rg_copy_run(&part[i]);
        }
    }
}

CUresult rg_upload(CUcontext c, CUstream s, CUdeviceptr dst, const void *src, size_t n,
                   void *pin0, void *pin1, CUevent e0, CUevent e1, size_t chunk,
                   const char **stage) {
    CUR(c);
    void *pin[2] = {pin0, pin1};
    CUevent ev[2] = {e0, e1};
    int used[2] = {0, 0};
    CUresult r;
    size_t off = 0;
    for (int b = 0; off < n; b ^= 1) {
        size_t len = n - off < chunk ? n - off : chunk;
        if (used[b]) {
            // Wait until the copy out of this staging buffer has finished.
            *stage = "cuEventSynchronize";
            if ((r = p_cuEventSynchronize(ev[b]))) return r;
        }
        rg_parallel_copy(pin[b], (const char *)src + off, len);
        *stage = "cuMemcpyHtoDAsync";
        if ((r = p_cuMemcpyHtoDAsync_v2(dst + off, pin[b], len, s))) return r;
        *stage = "cuEventRecord";
        if ((r = p_cuEventRecord(ev[b], s))) return r;
        used[b] = 1;
        off += len;
    }
    *stage = "cuStreamSynchronize";
    return p_cuStreamSynchronize(s);
}

CUresult rg_download(CUcontext c, CUstream s, void *dst, CUdeviceptr src, size_t n,
                     void *pin, size_t chunk, const char **stage) {
    CUR(c);
    CUresult r;
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        *stage = "cuMemcpyDtoHAsync";
        if ((r = p_cuMemcpyDtoHAsync_v2(pin, src + off, len, s))) return r;
        *stage = "cuStreamSynchronize";
        if ((r = p_cuStreamSynchronize(s))) return r;
        memcpy((char *)dst + off, pin, len);
    }
    return 0;
}

int rg_nvrtc_version(int *major, int *minor) { return p_nvrtcVersion(major, minor); }

int rg_nvrtc_compile(const char *src, const char *name, const char **opts, int nopts,
                     char **log, size_t *loglen, char **cubin, size_t *cubinlen,
                     const char **stage) {
    nvrtcProgram prog = NULL;
    *log = NULL; *loglen = 0; *cubin = NULL; *cubinlen = 0;
    *stage = "nvrtcCreateProgram";
    int r = p_nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
    if (r) return r;
    *stage = "nvrtcCompileProgram";
    int cr = p_nvrtcCompileProgram(prog, nopts, (const char *const *)opts);
    size_t ls = 0;
    if (p_nvrtcGetProgramLogSize(prog, &ls) == 0 && ls > 1) {
        *log = (char *)malloc(ls);
        if (*log && p_nvrtcGetProgramLog(prog, *log) == 0) *loglen = ls - 1;
    }
    if (cr) { p_nvrtcDestroyProgram(&prog); return cr; }
    *stage = "nvrtcGetCUBIN";
    size_t cs = 0;
    if ((r = p_nvrtcGetCUBINSize(prog, &cs))) { p_nvrtcDestroyProgram(&prog); return r; }
    *cubin = (char *)malloc(cs ? cs : 1);
    if ((r = p_nvrtcGetCUBIN(prog, *cubin))) { p_nvrtcDestroyProgram(&prog); return r; }
    *cubinlen = cs;
    p_nvrtcDestroyProgram(&prog);
    return 0;
}

void rg_free(void *p) { free(p); }

// rg_preload loads a library so that a later dlopen by its soname finds it
// (NVRTC loads libnvrtc-builtins by name; a wheel's folder is not on the
// loader's path).
int rg_preload(const char *path) { return dlopen(path, RTLD_NOW | RTLD_GLOBAL) != NULL; }

CUresult rg_copy_htod_async(CUcontext c, CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    CUR(c);
    return p_cuMemcpyHtoDAsync_v2(dst, src, n, s);
}
CUresult rg_copy_dtoh_async(CUcontext c, void *dst, CUdeviceptr src, size_t n, CUstream s) {
    CUR(c);
    return p_cuMemcpyDtoHAsync_v2(dst, src, n, s);
}
