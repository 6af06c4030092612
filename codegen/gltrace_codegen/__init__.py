"""gltrace's code generator: one description of the EGL/GLES API drives every
per-function piece of code (entry points, tables, wrappers, decoders)."""
