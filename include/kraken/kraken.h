/* libkraken: kraken's analyses and profiling sessions behind a small, versioned C ABI.
 *
 * Conventions (docs/c-api.md has the details and every option key):
 * - Strings in are UTF-8 and NUL-terminated. Inputs name files or stored profiles ("12",
 *   "db:12"), exactly as the kraken command line accepts them.
 * - Options are one JSON object per call ("{\"device\":\"h100-sxm\"}"); NULL or "" means
 *   no options. A key the call does not know, or a value of the wrong JSON type, is
 *   KRAKEN_ERROR_INVALID_ARGUMENT with a message naming the key, so that new keys can be
 *   added without changing a signature.
 * - Documents out are the bytes the CLI prints for the same inputs and settings with
 *   --json (option "output": "text" gives the readable form instead). They are returned
 *   through `char** out`, allocated by the library, and freed with kraken_free().
 * - Every function returns a kraken_status. On failure *out is set to NULL and the
 *   message (one line, naming the file or option at fault, as the CLI prints it after
 *   "kraken: error: ") is kept per thread: kraken_last_error() on the same thread reads
 *   it until that thread's next kraken call. A successful call clears it.
 * - No C++ exception ever leaves the library; an unexpected one becomes
 *   KRAKEN_ERROR_INTERNAL with its message.
 * - Thread safety: every function except the session ones may be called from any number
 *   of threads at once (each call opens what it needs: files, the store, HTTP clients).
 *   A session may be marked and stepped from any thread; stopping and freeing it must not
 *   race with other calls on the same session.
 */
#ifndef KRAKEN_KRAKEN_H_
#define KRAKEN_KRAKEN_H_

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a function's signature or meaning changes incompatibly; adding a
 * function or an option key keeps it. kraken_abi_version() reports the library's. */
#define KRAKEN_ABI_VERSION 1

#if defined(__GNUC__)
#define KRAKEN_API __attribute__((visibility("default")))
#else
#define KRAKEN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kraken_status {
  KRAKEN_OK = 0,
  /* An input or option value is unusable: a malformed file, "--price must be >= 0". */
  KRAKEN_ERROR_INVALID_INPUT = 1,
  /* A file, stored profile id, device or series that does not exist. */
  KRAKEN_ERROR_NOT_FOUND = 2,
  /* The operating system refused a read or write, or a server could not be reached
   * (a Prometheus URL). */
  KRAKEN_ERROR_IO = 3,
  /* Well-formed but not handled (yet): e.g. kernel capture in a session. */
  KRAKEN_ERROR_UNSUPPORTED = 4,
  /* A local service did not answer in time. */
  KRAKEN_ERROR_UNAVAILABLE = 5,
  /* A bug in kraken, or memory exhausted. */
  KRAKEN_ERROR_INTERNAL = 6,
  /* The call itself is wrong: a NULL pointer, options that are not a JSON object, an
   * unknown option key or a value of the wrong type, a session already stopped. */
  KRAKEN_ERROR_INVALID_ARGUMENT = 7
} kraken_status;

/* ---- Library ------------------------------------------------------------------------ */

/* KRAKEN_ABI_VERSION of the loaded library; compare with the header's. */
KRAKEN_API int kraken_abi_version(void);
/* kraken's release, "0.1.0" (static storage: never free it). */
KRAKEN_API const char* kraken_version(void);
/* The message of this thread's last failed call, "" when it succeeded. Valid until this
 * thread's next kraken call; never free it. */
KRAKEN_API const char* kraken_last_error(void);
/* The status of this thread's last call. */
KRAKEN_API kraken_status kraken_last_error_code(void);
/* Frees a document returned through `out`. NULL is ignored. */
KRAKEN_API void kraken_free(char* document);

/* ---- Analyses ------------------------------------------------------------------------
 * `inputs`: `input_count` files or stored profile ids. Each call's document is the one of
 * the CLI command named in its comment, with the option keys mirroring that command's
 * flags ('_' for '-'). Common keys: "output" ("json" default, or "text"), "format" (force
 * an importer), "db" (the store that ids are read from; default as the CLI's). */

/* `kraken analyze INPUT... --json`. Keys: device, window, thresholds, top, linked_only. */
KRAKEN_API kraken_status kraken_analyze(const char* const* inputs, size_t input_count, const char* options_json,
                                        char** out);
/* `kraken report INPUT...`: the self-contained HTML page, or with "data_only": true the
 * JSON document it renders. Keys: device, gpu_hour_cost, title. */
KRAKEN_API kraken_status kraken_report(const char* const* inputs, size_t input_count, const char* options_json,
                                       char** out);
/* `kraken disagg INPUT... --json`. Keys: link (list of "100Gbps,5us"), price, explain,
 * reference (a DLRM trace file). */
KRAKEN_API kraken_status kraken_disagg(const char* const* inputs, size_t input_count, const char* options_json,
                                       char** out);
/* `kraken diff A B --json`: inputs are exactly A (before) and B (after), each a file,
 * archive, directory or stored id. Keys: top. */
KRAKEN_API kraken_status kraken_diff(const char* const* inputs, size_t input_count, const char* options_json,
                                     char** out);
/* `kraken colocate INPUT... --json` (two or more workloads). Keys: mode, sm_split, model,
 * qos and rate (objects {"NAME": number}), device, explain, timeslice_ms. */
KRAKEN_API kraken_status kraken_colocate(const char* const* inputs, size_t input_count, const char* options_json,
                                         char** out);
/* `kraken colocate --optimize INPUT... --json`. Keys: those of kraken_colocate except
 * model, plus gpus (required), gpu_memory ("80GiB"), max_slowdown, max_per_gpu. */
KRAKEN_API kraken_status kraken_colocate_optimize(const char* const* inputs, size_t input_count,
                                                  const char* options_json, char** out);
/* Interference of `secondary` on `primary` sharing one GPU: `kraken colocate --json
 * --mode MODE PRIMARY SECONDARY`. Keys: mode ("timeslice", "mps", "mig"; default
 * "timeslice"), sm_split, device, explain, timeslice_ms, qos, rate. */
KRAKEN_API kraken_status kraken_predict_interference(const char* primary, const char* secondary,
                                                     const char* options_json, char** out);
/* `kraken temporal INPUT... --json`. Keys: series (list), horizon ("1h,24h"), explain
 * (with "output": "text" only, as the CLI's --explain excludes --json). */
KRAKEN_API kraken_status kraken_temporal(const char* const* inputs, size_t input_count, const char* options_json,
                                         char** out);
/* `kraken mig-plan INPUT... --json` (inputs may also be plan CSVs; none with a
 * "workload" list). Keys: gpu, headroom, max_slowdown (%), workload (list "NAME:GIB:SM_FRACTION"),
 * explain, slice_alone. */
KRAKEN_API kraken_status kraken_mig_plan(const char* const* inputs, size_t input_count, const char* options_json,
                                         char** out);
/* `kraken pack --nodes NODES --pods PODS --json`. Keys: policy, seeds, tune, threshold,
 * threads, explain, explain_pod (list of positions), explain_top. */
KRAKEN_API kraken_status kraken_pack(const char* nodes_csv_path, const char* pods_csv_path, const char* options_json,
                                     char** out);
/* `kraken analyze --prometheus URL --json`: per-pod DCGM use and pooling candidates.
 * Keys: namespace (required), pod, range ("7d"), step, end (Unix s), gpu_model, timeout
 * (s), explain. */
KRAKEN_API kraken_status kraken_cluster_analyze(const char* prometheus_url, const char* options_json, char** out);
/* `kraken plan tenants FILE --json` (docs/tenants.md): the tenants CSV's workloads placed
 * on the GPUs with each SLA checked. Keys: gpus (list "MODEL[:mig][@USD][=NAME]",
 * required), optimize ("cost", "performance", "balanced"), prices, format, db. */
KRAKEN_API kraken_status kraken_plan_tenants(const char* tenants_csv_path, const char* options_json, char** out);

/* ---- Profile store -------------------------------------------------------------------
 * Key "db": the database path (default: $KRAKEN_STORAGE_PATH, else
 * $XDG_DATA_HOME/kraken/kraken.db, else ~/.local/share/kraken/kraken.db). */

/* `kraken import FILE... --json [--db]`: what each file holds; with "store": true (the
 * default) also saved, the document then lists "stored_ids". Keys: db, store, format. */
KRAKEN_API kraken_status kraken_import(const char* const* files, size_t file_count, const char* options_json,
                                       char** out);
/* `kraken list --json`. Keys: db. */
KRAKEN_API kraken_status kraken_list_profiles(const char* options_json, char** out);
/* `kraken export ID --format json`: the whole stored profile. Keys: db. */
KRAKEN_API kraken_status kraken_export_profile(const char* id, const char* options_json, char** out);

/* ---- Trace edits -------------------------------------------------------------------- */

/* Removes the complete events ("ph": "X") named exactly "ProfilerStep#<step_number>" from
 * the PyTorch-profiler (Kineto) Chrome trace at `trace_path`, in place. Every other byte
 * of the file is kept (the removed events and one separating comma each go); the file is
 * streamed with bounded memory and replaced by a rename, never left half-written.
 * *out_removed is 1 when any event was removed, 0 when none was or when the file is not a
 * JSON object with a "traceEvents" array (then left as it is). The Python
 * WorkloadProfiler drops with it the range torch.profiler leaves open at stop. */
KRAKEN_API kraken_status kraken_remove_profiler_step(const char* trace_path, int64_t step_number, int* out_removed);

/* ---- Profiling sessions --------------------------------------------------------------
 * A session samples the GPUs with NVML on its own thread (no caller lock is held while
 * it samples) and attributes each pass to a process tree, as `kraken profile` does.
 * Keys of kraken_session_start:
 *   pids          list of process ids whose trees are followed (default: this process
 *                 and its descendants)
 *   interval      time between passes, "100ms" (default), "1s"
 *   slow_interval time between a GPU's slow NVML reads (energy, PCIe throughput, process
 *                 utilization), "1s" (default), "0": every pass
 *   samples       stop sampling after this many passes (default 0: when stopped)
 *   nvml_library  NVML library to load (default: $KRAKEN_NVML_LIBRARY, else
 *                 libnvidia-ml.so.1)
 *   name          what the stored profile's source says (default "pid N")
 *   store         save the profile in the store when stopped (default true)
 *   db            that store (default as above)
 *   out           also write the profile to this file (kraken's export JSON)
 *   kernel_capture  true also merges the kernels, copies and runtime calls kraken's CUPTI
 *                 tracer records for this process while the session runs: needs the
 *                 process started with the tracer (`kraken profile --kernels -- CMD`, or
 *                 CUDA_INJECTION64_PATH naming libkraken_cupti.so; docs/kernel-capture.md),
 *                 else KRAKEN_ERROR_UNSUPPORTED saying how. Stop then waits one flush
 *                 period of the tracer (KRAKEN_CUPTI_FLUSH_MS, 1 s by default), reads its
 *                 trace of this process (KRAKEN_CUPTI_OUTPUT), and the workload type and
 *                 bound come from the kernels; the stop document's "kernels" says what was
 *                 merged, or in "problems" and "note" why nothing was (a missing trace
 *                 is no error: the profile keeps its NVML samples)
 *   upload_to     also send the profile to this kraken API ("http://HOST:PORT") when
 *                 stopped, through the on-disk spool with retries (docs/upload.md)
 *   token_file    file holding that API's bearer token
 *   upload_spool  the spool folder (default $XDG_STATE_HOME/kraken/upload-spool)
 *   upload_retry_for  how long to retry an unreachable API, "30s" (default)
 * A session that cannot load NVML fails to start. */
typedef struct kraken_session kraken_session;

KRAKEN_API kraken_status kraken_session_start(const char* options_json, kraken_session** out_session);
/* Begins a phase named `name` now; the phase before it (if any) ends now. Phases are
 * stored as profiler ranges. */
KRAKEN_API kraken_status kraken_session_mark(kraken_session* session, const char* name);
/* Ends the current step and begins the next: step N spans from the previous step call
 * (the start for N = 0) to this one. Steps are stored as step annotations. */
KRAKEN_API kraken_status kraken_session_step(kraken_session* session);
/* Stops sampling, saves the profile and returns `kraken profile --json`'s document: the
 * run summary, with "stored": {"db", "profile_id", "file"} and "kernels" (null without
 * kernel_capture). Once only. */
KRAKEN_API kraken_status kraken_session_stop(kraken_session* session, char** out);
/* The sampling passes the session has taken so far (also while it samples, from any
 * thread): with "samples" set, a caller can wait until all of them are taken. */
KRAKEN_API kraken_status kraken_session_passes(const kraken_session* session, int64_t* out_passes);
/* After stop: the whole profile in kraken's export JSON, as `kraken profile --out FILE`
 * writes it (readable by every analysis above once written to a file). */
KRAKEN_API kraken_status kraken_session_profile(kraken_session* session, char** out);
/* Stops the session if it still runs (nothing saved) and frees it. NULL is ignored. */
KRAKEN_API void kraken_session_free(kraken_session* session);

#ifdef __cplusplus
}
#endif

#endif /* KRAKEN_KRAKEN_H_ */
