/*
 * The floor of the start-up benchmark: what loading the plugins costs by itself. dlopens
 * each plugin file given, in the order given (the host's bootstrap order), exactly as the
 * host does (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), and calls its entry point. Nothing else,
 * but printing how long that took, in milliseconds, so that the benchmark can tell the
 * loading apart from starting and ending the process.
 *
 * Built twice (see startup.py), both linked with libPluginABI.so, so the Swift runtime is
 * loaded at start, as in any Swift host:
 * - floorL, the honest floor: dlopen and the entry points, nothing else;
 * - with -DCONTAINED, the contained floor: the price of the host's promises paid the
 *   cheapest way in C. It forks first, and the parent only waits for the child (as the
 *   supervisor does); the child lstats every file (trust is never cached), then loads.
 *
 *   floor PLUGIN...
 *   floor-contained PLUGIN...
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
#ifdef CONTAINED
    pid_t child = fork();
    if (child < 0) return 1;
    if (child > 0) {
        int status = 0;
        while (waitpid(child, &status, 0) < 0) {}
        return WIFEXITED(status) ? WEXITSTATUS(status) : 70;
    }
    for (int i = 1; i < argc; i++) {
        struct stat status;
        if (lstat(argv[i], &status) != 0 || !S_ISREG(status.st_mode) || (status.st_mode & 022)) {
            fprintf(stderr, "floor: %s: not a trusted file\n", argv[i]);
            return 1;
        }
    }
#endif
    double start = milliseconds();
    int first = 1;
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
