/*
 * The peak resident set of a command, for the start-up benchmark. Python cannot measure
 * it: a process it starts carries the interpreter's high-water mark across exec, so every
 * small program would show Python's 15 MiB. This program is small, so the command it
 * forks starts from almost nothing.
 *
 *   peakrss OUTPUT COMMAND [ARGUMENT...]
 *
 * Runs COMMAND, writes its peak resident set in KiB to the file OUTPUT, and exits with
 * COMMAND's status.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: peakrss OUTPUT COMMAND [ARGUMENT...]\n");
        return 64;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("peakrss: fork");
        return 71;
    }
    if (child == 0) {
        execv(argv[2], argv + 2);
        perror("peakrss: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) < 0) {
        perror("peakrss: wait4");
        return 71;
    }
    FILE *output = fopen(argv[1], "w");
    if (!output || fprintf(output, "%ld\n", usage.ru_maxrss) < 0 || fclose(output) != 0) {
        perror("peakrss: writing the result");
        return 74;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
