// `gltrace surface record` and `gltrace surface from-gl`: the words after
// the subcommand's name.
#pragma once

#include <string>
#include <vector>

namespace gltrace::cli {

int surface_record(const std::vector<std::string>& args);
int surface_from_gl(const std::vector<std::string>& args);

}  // namespace gltrace::cli
