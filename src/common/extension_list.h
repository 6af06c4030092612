// Whether an extension is named in a GL or EGL extension string: a whole
// name of the space-separated list (GL_EXT_foo is not GL_EXT_foo_bar).
#pragma once

#include <string_view>

namespace gltrace {

inline bool extension_listed(std::string_view list, std::string_view name) {
  for (size_t at = list.find(name); at != std::string_view::npos; at = list.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
  }
  return false;
}

// The same of a driver's answer, which may be null.
inline bool extension_listed(const unsigned char* list, std::string_view name) {
  return list != nullptr && extension_listed(reinterpret_cast<const char*>(list), name);
}

}  // namespace gltrace
