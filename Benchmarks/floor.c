/*
 * The floor of the start-up benchmark: what loading the plugins costs by itself. Loads
 * libPluginABI.so (the host links it), then dlopens each plugin file given, in the order
 * given (the host's bootstrap order), exactly as the host does (RTLD_NOW | RTLD_LOCAL |
 * RTLD_NODELETE), and calls its entry point. Nothing else.
 *
 *   floor LIBPLUGINABI PLUGIN...
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: floor LIBPLUGINABI PLUGIN...\n");
        return 64;
    }
    if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "floor: %s\n", dlerror());
        return 1;
    }
    for (int i = 2; i < argc; i++) {
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
    return 0;
}
