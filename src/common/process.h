// Facts about the process we are loaded into.
#pragma once

#include <cstdint>
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

// The command line as it was when the process started: "arg0 arg1 ...".
// Read from /proc/self/cmdline before main by remember_command_line_at_load()
// in the library the app loads first (the interposer), since apps may rewrite
// their argv early; read now where that library is absent.
const std::string& command_line();
// Called from a constructor of the interposer (before main).
void remember_command_line_at_load();

// Directory part of a path ("." if none).
std::string dirname_of(const std::string& path);
std::string basename_of(const std::string& path);

}  // namespace gltrace
