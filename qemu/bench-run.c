// SPDX-License-Identifier: GPL-2.0
/*
 * bench-run: run a command and print what it cost, for make bench's
 * workload section (qemu/bench-workload).
 *
 *   bench-run NAME DESCRIPTION -- COMMAND [ARG...]
 *
 * Prints, on standard output, two lines in ktp-bench's format
 * ("name<TAB>value<TAB>description"):
 *
 *   NAME_ns   the CLOCK_MONOTONIC time from fork to the command's exit
 *   NAME_cpu  the CPU time (user + system, microseconds x 1000) of the
 *             command and of every descendant it waited for
 *
 * Under QEMU's -icount shift=0,sleep=off one nanosecond of guest time is
 * one guest instruction: the first line is the instructions the guest ran
 * on all its CPUs while the command ran, the second those of the command's
 * own tasks. SIGINT and SIGTERM are passed on to the command, so that a
 * recorder started in the background stops when the script signals it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child;

static void pass_on(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static long long us_of(const struct timeval *t)
{
	return t->tv_sec * 1000000LL + t->tv_usec;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct sigaction sa;
	struct rusage ru;
	int status;

	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: bench-run NAME DESCRIPTION -- COMMAND [ARG...]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pass_on;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	child = fork();
	if (child < 0) {
		perror("bench-run: fork");
		return 1;
	}
	if (!child) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "bench-run: %s: %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	while (wait4(child, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("bench-run: wait4");
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s_ns\t%lld\t%s, guest instructions\n", argv[1],
	       ns_of(&t1) - ns_of(&t0), argv[2]);
	printf("%s_cpu\t%lld\t%s, instructions of its tasks\n", argv[1],
	       (us_of(&ru.ru_utime) + us_of(&ru.ru_stime)) * 1000, argv[2]);
	fflush(stdout);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
