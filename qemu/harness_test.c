// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the test harness itself, run in the guest like any selftest:
 * the guest runs the kernel that was just built, and its pseudo file
 * systems are mounted. With "ktau_harness=fail" on the kernel command line
 * it adds one case that fails on purpose, so the host can prove that a
 * failure travels all the way to the final count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kselftest.h"

static char cmdline[4096];

/* Value of "key=" on the kernel command line, or NULL. */
static const char *cmdline_arg(const char *key)
{
	static char val[256];
	size_t klen = strlen(key);
	char *w;

	for (w = strtok(cmdline, " \n"); w; w = strtok(NULL, " \n")) {
		if (!strncmp(w, key, klen) && w[klen] == '=') {
			snprintf(val, sizeof(val), "%s", w + klen + 1);
			return val;
		}
	}
	return NULL;
}

static int read_cmdline(void)
{
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(cmdline, 1, sizeof(cmdline) - 1, f);
	cmdline[n] = '\0';
	fclose(f);
	return 0;
}

int main(void)
{
	char saved[sizeof(cmdline)];
	const char *release, *harness;
	struct utsname u;
	struct stat st;
	int fail_on_purpose;

	ksft_print_header();
	if (read_cmdline())
		ksft_exit_fail_msg("cannot read /proc/cmdline\n");
	memcpy(saved, cmdline, sizeof(saved));
	harness = cmdline_arg("ktau_harness");
	fail_on_purpose = harness && !strcmp(harness, "fail");
	memcpy(cmdline, saved, sizeof(cmdline));
	release = cmdline_arg("ktau_release");

	ksft_set_plan(2 + fail_on_purpose);

	uname(&u);
	ksft_test_result(release && !strcmp(u.release, release),
			 "booted_kernel_is_the_built_one (%s)\n", u.release);
	ksft_test_result(stat("/sys/kernel/debug/kunit", &st) == 0 &&
			 S_ISDIR(st.st_mode), "debugfs_mounted_with_kunit\n");
	if (fail_on_purpose)
		ksft_test_result_fail("deliberate_failure\n");

	ksft_finished();
}
