#include "grpc_lines.hpp"

#include <grpc/support/log.h>

#include "log.hpp"

namespace linkage::server::log {
namespace {

void grpc_line(gpr_log_func_args* args) {
  spdlog::level::level_enum level = spdlog::level::info;
  if (args->severity == GPR_LOG_SEVERITY_ERROR) level = spdlog::level::err;
  if (args->severity == GPR_LOG_SEVERITY_DEBUG) level = spdlog::level::debug;
  event(level, "grpc", "", args->message ? args->message : "",
        {{"file", args->file ? args->file : ""}, {"line", args->line}});
}

}  // namespace

void route_grpc_lines() { gpr_set_log_function(grpc_line); }

}  // namespace linkage::server::log
