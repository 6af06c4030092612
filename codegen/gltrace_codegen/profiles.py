"""Generates gltrace/api/profiles.h from spec/portable_profiles.toml: what
`gltrace trace --portable=PROFILE` lets an app see of its driver (the
version, the extensions, the limits), for the trace layer's hooks and for
`gltrace info --requirements --profile`."""

import tomllib

from .emit import HEADER


class ProfileError(Exception):
    pass


_KEYS = {"version", "glsl", "extensions", "at_most", "at_least", "base"}


def read(path, gl_enums):
    """[(name, profile dict with its base merged in)], in the file's order;
    enum names resolved to values through gl_enums [(value, name, ...)]."""
    with open(path, "rb") as f:
        table = tomllib.load(f)
    values = {}
    for value, name, *_ in gl_enums:
        values.setdefault(name, value)
    profiles = {}
    for name, entry in table.get("profiles", {}).items():
        where = f"profiles.{name}"
        unknown = set(entry) - _KEYS
        if unknown:
            raise ProfileError(f"{where}: unknown keys {sorted(unknown)}")
        merged = {"extensions": [], "at_most": {}, "at_least": {}}
        if "base" in entry:
            if entry["base"] not in profiles:
                raise ProfileError(f"{where}: base {entry['base']!r} is not a profile above it")
            base = profiles[entry["base"]]
            merged = {"extensions": list(base["extensions"]), "at_most": dict(base["at_most"]),
                      "at_least": dict(base["at_least"])}
        for key in ("version", "glsl"):
            if key not in entry:
                raise ProfileError(f"{where}: no {key}")
            merged[key] = entry[key]
        major, _, minor = merged["version"].partition(".")
        if not (major.isdigit() and minor.isdigit()):
            raise ProfileError(f"{where}: version {merged['version']!r} is not M.m")
        merged["major"], merged["minor"] = int(major), int(minor)
        merged["extensions"] += entry.get("extensions", [])
        for rule in ("at_most", "at_least"):
            for pname, value in entry.get(rule, {}).items():
                if pname not in values:
                    raise ProfileError(f"{where}.{rule}: {pname} is no GL enum of the registry")
                merged[rule][pname] = int(value)
        profiles[name] = merged
    return list(profiles.items()), values


def profiles_h(profiles, values):
    out = [HEADER, "#pragma once", "", "#include <cstddef>", "#include <cstdint>",
           "#include <iterator>", "",
           "namespace gltrace::api {", "",
           "struct ProfileLimit {",
           "  uint32_t pname;",
           "  const char* name;",
           "  int64_t value;",
           "  bool at_least;  // false: at most",
           "};", "",
           "struct Profile {",
           "  const char* name;",
           "  int major, minor;",
           "  const char* glsl;  // GL_SHADING_LANGUAGE_VERSION's number",
           "  const char* const* extensions;",
           "  size_t extension_count;",
           "  const ProfileLimit* limits;",
           "  size_t limit_count;",
           "};", ""]
    for i, (name, p) in enumerate(profiles):
        out.append(f"inline constexpr const char* kProfile{i}Extensions[] = {{")
        out += [f'    "{e}",' for e in sorted(set(p["extensions"]))]
        out += ["};", f"inline constexpr ProfileLimit kProfile{i}Limits[] = {{"]
        for rule in ("at_most", "at_least"):
            for pname, value in sorted(p[rule].items()):
                out.append(f'    {{0x{values[pname]:X}, "{pname}", {value}, '
                           f'{"true" if rule == "at_least" else "false"}}},')
        out += ["};", ""]
    out.append("// spec/portable_profiles.toml, in its order.")
    out.append("inline constexpr Profile kProfiles[] = {")
    for i, (name, p) in enumerate(profiles):
        out.append(f'    {{"{name}", {p["major"]}, {p["minor"]}, "{p["glsl"]}", '
                   f"kProfile{i}Extensions, std::size(kProfile{i}Extensions), "
                   f"kProfile{i}Limits, std::size(kProfile{i}Limits)}},")
    out += ["};", "",
            "// The profile of this name; nullptr when there is none.",
            "inline const Profile* find_profile(const char* name) {",
            "  for (const Profile& p : kProfiles) {",
            "    const char* a = p.name;",
            "    const char* b = name;",
            "    while (*a != 0 && *a == *b) ++a, ++b;",
            "    if (*a == 0 && *b == 0) return &p;",
            "  }",
            "  return nullptr;",
            "}", "",
            "}  // namespace gltrace::api", ""]
    return "\n".join(out)
