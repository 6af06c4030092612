// The front end (web/), compiled in by embed_assets.py: nothing is read from
// disk at run time.
#pragma once

#include <cstddef>

namespace gltrace::view {

struct Asset {
  const char* path;          // URL path: "/assets/app.js"; the page is "/assets/index.html"
  const char* content_type;  // "text/javascript; charset=utf-8"
  const unsigned char* data;
  size_t size;
};

// Ends with an entry whose path is null.
extern const Asset kAssets[];

}  // namespace gltrace::view
