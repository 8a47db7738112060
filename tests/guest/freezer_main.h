/* SPDX-License-Identifier: GPL-2.0 */
/*
 * main() of the test programs that run every test against one freezer
 * (freeze_scenarios, freeze_compat): "PROG [todo|classic] [harness
 * options]" selects the freezer, then runs the harness on the rest.  The
 * settings the tests change are saved first and restored when the program
 * exits, even after a test was killed on the harness's timeout before its
 * teardown could run.  Include after kselftest_harness.h and freeze.h.
 */
#ifndef FREEZER_MAIN_H
#define FREEZER_MAIN_H

#include <stdlib.h>
#include "freeze.h"

/* The freezer every test runs with (argv[1]), or NULL: the current one. */
static const char *freezer_name;
/* What selecting it returned: 0, -ENOENT (not in this kernel), -errno. */
static int freezer_err;

/*
 * In a fixture's setup: skip when this kernel lacks the chosen freezer,
 * fail when choosing it failed or another one is now selected.
 */
#define REQUIRE_CHOSEN_FREEZER() do {						\
	if (freezer_err == -ENOENT)						\
		SKIP(return, "no %s freezer in this kernel (no %s)",		\
		     freezer_name, FREEZER_SELECT);				\
	ASSERT_EQ(0, freezer_err)						\
		TH_LOG("selecting the %s freezer: %s", freezer_name,		\
		       strerror(-freezer_err));					\
	if (freezer_name) {							\
		ASSERT_TRUE(freezer_is(freezer_name))				\
			TH_LOG("the %s freezer is no longer selected",		\
			       freezer_name);					\
	}									\
} while (0)

/* A file the tests write, and its value when the program started. */
struct saved_setting {
	const char *path;
	char value[32];
};

static pid_t main_pid;
static struct saved_setting *saved_settings;
static unsigned int nr_saved_settings;
static char saved_freezer[16];

/* While the program runs, a freeze that fails gives up after this many ms. */
#define RUN_FREEZE_TIMEOUT_MS	5000

static void restore_settings(void)
{
	unsigned int i;

	if (getpid() != main_pid)
		return;
	for (i = 0; i < nr_saved_settings; i++)
		if (saved_settings[i].value[0])
			write_str(saved_settings[i].path, saved_settings[i].value);
	write_str(PM_TEST, "none");
	if (saved_freezer[0])
		write_str(FREEZER_SELECT, saved_freezer);
}

static void save_settings(void)
{
	char buf[64], *open_bracket, *close_bracket;
	unsigned int i;

	main_pid = getpid();
	for (i = 0; i < nr_saved_settings; i++) {
		struct saved_setting *ss = &saved_settings[i];

		if (read_str(ss->path, ss->value, sizeof(ss->value)) < 0)
			ss->value[0] = 0;
		ss->value[strcspn(ss->value, "\n")] = 0;
		/*
		 * The default 20 s would let a test whose freezes fail run
		 * into the harness's 30 s timeout, which kills it before its
		 * teardown.
		 */
		if (!strcmp(ss->path, PM_FREEZE_TIMEOUT) && ss->value[0] &&
		    atol(ss->value) > RUN_FREEZE_TIMEOUT_MS)
			write_int(PM_FREEZE_TIMEOUT, RUN_FREEZE_TIMEOUT_MS);
	}
	/* "[todo] classic" */
	if (read_str(FREEZER_SELECT, buf, sizeof(buf)) > 0 &&
	    (open_bracket = strchr(buf, '[')) && (close_bracket = strchr(open_bracket, ']'))) {
		*close_bracket = 0;
		snprintf(saved_freezer, sizeof(saved_freezer), "%s", open_bracket + 1);
	}
	atexit(restore_settings);
}

/*
 * The program's main(): @settings (@n of them, PM_FREEZE_TIMEOUT among
 * them) are saved and restored at exit.
 */
static int freezer_test_main(int argc, char **argv, struct saved_setting *settings,
			     unsigned int n)
{
	char **args = argv;

	saved_settings = settings;
	nr_saved_settings = n;
	save_settings();
	if (argc > 1 && argv[1][0] != '-') {
		freezer_name = argv[1];
		if (strcmp(freezer_name, "todo") && strcmp(freezer_name, "classic")) {
			fprintf(stderr, "usage: %s [todo|classic] [harness options]\n", argv[0]);
			return KSFT_FAIL;
		}
		freezer_err = select_freezer(freezer_name);
		/* The harness sees argv[0] and the options after the name. */
		args = argv + 1;
		args[0] = argv[0];
		argc--;
	}
	return test_harness_run(argc, args);
}

#endif /* FREEZER_MAIN_H */
