// Facts about the process we are loaded into.
#pragma once

#include <string>

namespace gltrace {

// True in setuid/setgid (AT_SECURE) processes. GLTRACE_ASSUME_SECURE=1 forces
// it on (it can only make the loader stricter), which lets tests exercise the
// secure path without installing a setuid binary.
bool is_secure_process();

// getenv() that returns nullptr for every variable in a secure process.
const char* env_get(const char* name);

// Absolute path of the running executable ("" if unknown).
const std::string& executable_path();

// Basename of the executable: what "gpu_debug_app" is matched against.
const std::string& process_name();

// Directory part of a path ("." if none).
std::string dirname_of(const std::string& path);
std::string basename_of(const std::string& path);

}  // namespace gltrace
