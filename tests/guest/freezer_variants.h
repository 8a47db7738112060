/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two freezers as fixture variants: a fixture declared with
 * FREEZER_VARIANTS(fixture) runs each of its tests once per freezer, as
 * FIXTURE.todo.TEST and FIXTURE.classic.TEST, and its setup selects that
 * freezer with SELECT_VARIANT_FREEZER().  freezer_test_main() is such a
 * program's main(): the settings its tests change are saved first and
 * restored when the program exits, even after a test was killed on the
 * harness's timeout before its teardown could run; the options are
 * harness_main()'s ("--freezer todo" runs one variant).  Include after
 * kselftest_harness.h and freeze.h.
 */
#ifndef FREEZER_VARIANTS_H
#define FREEZER_VARIANTS_H

#include <stdlib.h>
#include "freeze.h"
#include "harness_main.h"

#define FREEZER_VARIANTS(fixture)					\
	FIXTURE_VARIANT(fixture) {					\
		const char *freezer;					\
	};								\
	FIXTURE_VARIANT_ADD(fixture, todo) { .freezer = "todo" };	\
	FIXTURE_VARIANT_ADD(fixture, classic) { .freezer = "classic" }

/*
 * In a fixture's setup: select the variant's freezer; skip when this
 * kernel lacks it, fail when selecting it failed or did not take.
 */
#define SELECT_VARIANT_FREEZER() do {						\
	int __err = select_freezer(variant->freezer);				\
										\
	if (__err == -ENOENT)							\
		SKIP(return, "no %s freezer in this kernel (no %s)",		\
		     variant->freezer, FREEZER_SELECT);				\
	ASSERT_EQ(0, __err)							\
		TH_LOG("selecting the %s freezer: %s", variant->freezer,	\
		       strerror(-__err));					\
	ASSERT_TRUE(freezer_is(variant->freezer))				\
		TH_LOG("the %s freezer is not selected", variant->freezer);	\
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
 * them) are saved and restored at exit; then harness_main().
 */
static int freezer_test_main(int argc, char **argv, struct saved_setting *settings,
			     unsigned int n)
{
	saved_settings = settings;
	nr_saved_settings = n;
	save_settings();
	return harness_main(argc, argv);
}

#endif /* FREEZER_VARIANTS_H */
