/*
 * The floor of the start-up benchmark: what loading the plugins costs by itself. dlopens
 * each plugin file given, in the order given (the host's bootstrap order), exactly as the
 * host does (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), and calls its entry point. Nothing else,
 * but printing how long that took, in milliseconds, so that the benchmark can tell the
 * loading apart from starting and ending the process.
 *
 * Built twice (see startup.py):
 * - the honest floor links libPluginABI.so, so the Swift runtime is loaded at start, as in
 *   any Swift host;
 * - with -DLATE_ABI, it dlopens libPluginABI.so (the first argument) first instead: the
 *   runtime then comes in by dlopen, and glibc appends every later plugin's scope to it,
 *   which costs a C loader more than any Swift host (kept as a second line).
 *
 *   floor PLUGIN...
 *   floor-late LIBPLUGINABI PLUGIN...
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static double milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    double start = milliseconds();
    int first = 1;
#ifdef LATE_ABI
    if (argc < 2) {
        fprintf(stderr, "usage: floor-late LIBPLUGINABI PLUGIN...\n");
        return 64;
    }
    if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "floor: %s\n", dlerror());
        return 1;
    }
    first = 2;
#endif
    for (int i = first; i < argc; i++) {
        void *library = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!library) {
            fprintf(stderr, "floor: %s\n", dlerror());
            return 1;
        }
        void *(*entry)(void) = (void *(*)(void))dlsym(library, "plugin_host_bootstrapping");
        if (!entry || !entry()) {
            fprintf(stderr, "floor: %s: no entry point or no component\n", argv[i]);
            return 1;
        }
    }
    printf("%.3f\n", milliseconds() - start);
    return 0;
}
