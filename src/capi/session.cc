// Profiling sessions through the C API: the opaque kraken_session is the request layer's
// ProfilingSession (app/profile_session.h), which samples on a thread of its own.
#include "app/profile_session.h"
#include "capi/call.h"
#include "capi/options.h"

struct kraken_session {
  std::unique_ptr<kraken::ProfilingSession> session;
};

namespace kraken::capi {
namespace {

Outcome Start(const char* options_json, kraken_session** out_session) {
  OptionReader reader(options_json);
  SessionSettings settings;
  reader.Read("pids", &settings.pids);
  reader.Read("interval", &settings.interval);
  reader.Read("slow_interval", &settings.slow_interval);
  reader.Read("samples", &settings.samples);
  reader.Read("nvml_library", &settings.nvml_library);
  reader.Read("name", &settings.name);
  reader.Read("store", &settings.store);
  reader.Read("db", &settings.db);
  reader.Read("out", &settings.out);
  reader.Read("kernel_capture", &settings.kernel_capture);
  reader.Read("upload_to", &settings.upload_to);
  reader.Read("token_file", &settings.token_file);
  reader.Read("upload_spool", &settings.upload_spool);
  reader.Read("upload_retry_for", &settings.upload_retry_for);
  if (auto problem = reader.Problem()) return Outcome::BadArgument(*problem);
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ProfilingSession> session, ProfilingSession::Start(settings));
  *out_session = new kraken_session{std::move(session)};
  return Status::Ok();
}

Outcome CheckSession(const kraken_session* session) {
  if (session == nullptr || session->session == nullptr) return Outcome::BadArgument("the session is NULL");
  return Status::Ok();
}

// A session's own misuse (marking after stop, stopping twice) is the caller's error.
Outcome CheckRunning(const kraken_session* session, const char* call) {
  if (Outcome checked = CheckSession(session); checked.code() != KRAKEN_OK) return checked;
  if (session->session->stopped())
    return Outcome::BadArgument(std::string(call) + ": the session is stopped already");
  return Status::Ok();
}

}  // namespace
}  // namespace kraken::capi

using kraken::capi::Outcome;

extern "C" {

kraken_status kraken_session_start(const char* options_json, kraken_session** out_session) {
  if (out_session == nullptr) return kraken::capi::Perform([] { return Outcome::BadArgument("out_session is NULL"); });
  *out_session = nullptr;
  return kraken::capi::Perform([&] { return kraken::capi::Start(options_json, out_session); });
}

kraken_status kraken_session_mark(kraken_session* session, const char* name) {
  return kraken::capi::Perform([&]() -> Outcome {
    if (Outcome checked = kraken::capi::CheckRunning(session, "kraken_session_mark"); checked.code() != KRAKEN_OK)
      return checked;
    if (name == nullptr) return Outcome::BadArgument("the phase name is NULL");
    return session->session->Mark(name);
  });
}

kraken_status kraken_session_step(kraken_session* session) {
  return kraken::capi::Perform([&]() -> Outcome {
    if (Outcome checked = kraken::capi::CheckRunning(session, "kraken_session_step"); checked.code() != KRAKEN_OK)
      return checked;
    return session->session->Step();
  });
}

kraken_status kraken_session_stop(kraken_session* session, char** out) {
  return kraken::capi::Deliver(out, [&]() -> Outcome {
    if (Outcome checked = kraken::capi::CheckRunning(session, "kraken_session_stop"); checked.code() != KRAKEN_OK)
      return checked;
    return session->session->Stop();
  });
}

kraken_status kraken_session_passes(const kraken_session* session, int64_t* out_passes) {
  return kraken::capi::Perform([&]() -> Outcome {
    if (Outcome checked = kraken::capi::CheckSession(session); checked.code() != KRAKEN_OK) return checked;
    if (out_passes == nullptr) return Outcome::BadArgument("out_passes is NULL");
    *out_passes = session->session->passes_taken();
    return kraken::Status::Ok();
  });
}

kraken_status kraken_session_profile(kraken_session* session, char** out) {
  return kraken::capi::Deliver(out, [&]() -> Outcome {
    if (Outcome checked = kraken::capi::CheckSession(session); checked.code() != KRAKEN_OK) return checked;
    if (!session->session->finished())
      return Outcome::BadArgument("kraken_session_profile: the session is still sampling; stop it first");
    return session->session->ProfileJson();
  });
}

void kraken_session_free(kraken_session* session) {
  // Joining the sampling thread cannot throw; deleting a session never fails.
  delete session;
}

}  // extern "C"
