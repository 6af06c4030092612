// A layer that lacks AndroidGLESLayer_GetProcAddress: the loader must skip it
// with a message and load the rest of the chain.
extern "C" __attribute__((visibility("default"))) void AndroidGLESLayer_Initialize(void*, void*) {}
