/* bench/after_pause.c's round trip without MPI: two processes and one shared cache line.
 * The parent busy-waits G µs (rdtsc only), writes the line and waits for the child's echo;
 * the child polls the line. Median round trip per gap: what the machine itself charges a
 * pause, against what MPI's own code does after one. Usage: after_pause_raw [round trips]. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    const double gaps_us[] = {0, 50, 100, 200, 500, 1000, 5000};
    const int n_gaps = sizeof gaps_us / sizeof *gaps_us;
    volatile long *line = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (line == MAP_FAILED) return 1;
    double w0 = now_ns();
    unsigned long long c0 = __rdtsc();
    while (now_ns() - w0 < 2e7) {}
    double ticks_per_ns = (__rdtsc() - c0) / (now_ns() - w0);
    pid_t child = fork();
    if (child == 0) {
        for (long i = 1; i <= (long)n * n_gaps; i++) {
            while (line[0] != i) _mm_pause();
            line[8] = i;
        }
        _exit(0);
    }
    double *rt = malloc(n * sizeof *rt);
    long k = 0;
    for (int g = 0; g < n_gaps; g++) {
        unsigned long long gap = (unsigned long long)(gaps_us[g] * 1e3 * ticks_per_ns);
        for (int i = 0; i < n; i++) {
            unsigned long long s = __rdtsc();
            while (__rdtsc() - s < gap) {}
            double a = now_ns();
            line[0] = ++k;
            while (line[8] != k) {}
            rt[i] = now_ns() - a;
        }
        qsort(rt, n, sizeof *rt, cmp);
        printf("after %5.0f us: raw shared-memory round trip %6.0f ns (median of %d)\n", gaps_us[g], rt[n / 2], n);
    }
    waitpid(child, 0, 0);
    return 0;
}
