// shim.h: the few CUDA driver and NVRTC declarations rigel needs, written out
// by hand so that the package builds on machines without any CUDA headers.
// Libraries are dlopen'ed at run time (shim.c).
#ifndef RIGEL_CUDA_SHIM_H
#define RIGEL_CUDA_SHIM_H
#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef void *nvrtcProgram;

// Loading. Each returns NULL on success or a static/allocated message.
const char *rg_load_cuda(void);
const char *rg_load_nvrtc(const char *path);
const char *rg_nvrtc_path(void);

// Error names (never NULL).
const char *rg_cu_error_name(CUresult r);
const char *rg_nvrtc_error_string(int r);

// Driver calls. Every entry that touches a context takes it and makes it
// current on the calling OS thread first: Go moves goroutines between
// threads, and a context current on one thread is not current on another.
CUresult rg_init(void);
CUresult rg_driver_version(int *v);
CUresult rg_device_count(int *n);
CUresult rg_device_get(CUdevice *d, int ordinal);
CUresult rg_device_name(char *buf, int len, CUdevice d);
CUresult rg_device_attr(int *v, int attr, CUdevice d);
CUresult rg_device_total_mem(size_t *b, CUdevice d);
CUresult rg_primary_ctx_retain(CUcontext *ctx, CUdevice d);
CUresult rg_primary_ctx_release(CUdevice d);
CUresult rg_mem_info(CUcontext ctx, size_t *free_b, size_t *total_b);
CUresult rg_mem_alloc(CUcontext ctx, CUdeviceptr *p, size_t n);
CUresult rg_mem_free(CUcontext ctx, CUdeviceptr p);
CUresult rg_host_alloc(CUcontext ctx, void **p, size_t n);
CUresult rg_host_free(CUcontext ctx, void *p);
CUresult rg_stream_create(CUcontext ctx, CUstream *s);
CUresult rg_stream_destroy(CUcontext ctx, CUstream s);
CUresult rg_stream_sync(CUcontext ctx, CUstream s);
CUresult rg_event_create(CUcontext ctx, CUevent *e);
CUresult rg_event_create_untimed(CUcontext ctx, CUevent *e);
CUresult rg_stream_wait_event(CUcontext ctx, CUstream s, CUevent e);
CUresult rg_event_destroy(CUcontext ctx, CUevent e);
CUresult rg_event_record(CUcontext ctx, CUevent e, CUstream s);
CUresult rg_event_elapsed(CUcontext ctx, float *ms, CUevent a, CUevent b);
CUresult rg_module_load(CUcontext ctx, CUmodule *m, const void *image);
CUresult rg_module_unload(CUcontext ctx, CUmodule m);
CUresult rg_module_function(CUcontext ctx, CUfunction *f, CUmodule m, const char *name);
// rg_module_global: the device address and size of a module's global.
CUresult rg_module_global(CUcontext ctx, CUdeviceptr *p, size_t *size, CUmodule m, const char *name);
// How many blocks of f (block threads, shmem bytes of dynamic shared
// memory) one multiprocessor holds at once.
CUresult rg_resident_blocks(CUcontext ctx, int *n, CUfunction f, int block, size_t shmem);
CUresult rg_func_max_shared(CUcontext ctx, CUfunction f, int bytes);
CUresult rg_launch(CUcontext ctx, CUfunction f, unsigned grid, unsigned block,
                   unsigned shmem, CUstream s, void *argblock);
CUresult rg_memset8(CUcontext ctx, CUdeviceptr p, unsigned char v, size_t n, CUstream s);
CUresult rg_copy_dtod(CUcontext ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
CUresult rg_copy_htod_pinned(CUcontext ctx, CUdeviceptr dst, const void *src, size_t n, CUstream s);
CUresult rg_copy_dtoh_pinned(CUcontext ctx, void *dst, CUdeviceptr src, size_t n, CUstream s);

// Chunked copies through two pinned staging buffers (double-buffered: the
// host fills one while the other is in flight). *stage is the failing step
// on error.
CUresult rg_upload_small(CUcontext ctx, CUstream s, CUdeviceptr dst, const void *src, size_t n,
                         void *pin, CUevent ev, const char **stage);
// rg_parallel_copy copies n bytes on up to 8 threads (the staging copy of
// an upload).
void rg_parallel_copy(void *dst, const void *src, size_t n);
CUresult rg_upload(CUcontext ctx, CUstream s, CUdeviceptr dst, const void *src, size_t n,
                   void *pin0, void *pin1, CUevent e0, CUevent e1, size_t chunk,
                   const char **stage);
CUresult rg_download(CUcontext ctx, CUstream s, void *dst, CUdeviceptr src, size_t n,
                     void *pin, size_t chunk, const char **stage);

// NVRTC. rg_nvrtc_compile returns the nvrtcResult; on return *log holds the
// compile log (malloc'ed, maybe empty) and on success *cubin the CUBIN.
int rg_nvrtc_version(int *major, int *minor);
int rg_nvrtc_compile(const char *src, const char *name, const char **opts, int nopts,
                     char **log, size_t *loglen, char **cubin, size_t *cubinlen,
                     const char **stage);
void rg_free(void *p);
int rg_preload(const char *path);
CUresult rg_copy_htod_async(CUcontext c, CUdeviceptr dst, const void *src, size_t n, CUstream s);
CUresult rg_copy_dtoh_async(CUcontext c, void *dst, CUdeviceptr src, size_t n, CUstream s);

#endif
