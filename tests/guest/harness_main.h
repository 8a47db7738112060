/* SPDX-License-Identifier: GPL-2.0 */
/*
 * main() of every guest test program built on kselftest_harness.h, with
 * two options of its own before the harness's:
 *
 *   PROG [--list] [--match GLOB]... [--freezer todo|classic] [harness options]
 *
 *   --list           print each test's full name, FIXTURE.VARIANT.TEST
 *                    (FIXTURE.TEST without variants), one per line
 *   --match GLOB     run the tests whose full name, or whose name without
 *                    the variant, matches GLOB (fnmatch(3)); repeatable
 *   --freezer NAME   run only the tests of variant NAME, in programs whose
 *                    fixtures have the freezers as variants; tests of a
 *                    fixture without variants run on the freezer they
 *                    select themselves
 *
 * The harness filters by exact names only (its -r), and combines its
 * filters with "or", so these two become one -r option per chosen test.
 * Include after kselftest_harness.h; end the program with HARNESS_MAIN, or
 * call harness_main() from its own main().  Not the kernel's
 * TEST_HARNESS_MAIN: its main() has no --list (its -l prints a table to
 * stderr and exits 4), so scripts/host/initramfs.sh refuses it.
 */
#ifndef HARNESS_MAIN_H
#define HARNESS_MAIN_H

#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct harness_choice {
	const char *match[16];
	unsigned int nr_match;
	const char *freezer;
	bool list;
};

/* The harness's own variant of a fixture that declares none. */
static const struct __fixture_variant_metadata harness_no_variant = { .name = "" };

/* Whether test @full (FIXTURE.VARIANT.TEST), @short (FIXTURE.TEST) is chosen. */
static bool harness_chosen(const struct harness_choice *c, const char *variant,
			   const char *full, const char *short_name)
{
	unsigned int i;

	if (c->freezer && variant[0] && strcmp(variant, c->freezer))
		return false;
	if (!c->nr_match)
		return true;
	for (i = 0; i < c->nr_match; i++)
		if (!fnmatch(c->match[i], full, 0) || !fnmatch(c->match[i], short_name, 0))
			return true;
	return false;
}

/*
 * Walk every test the harness registered, in the order it runs them, and
 * count the chosen ones; print each one's name if @print, and add
 * "-r NAME" for each to @args at *@n if @args.
 */
static int harness_walk(const struct harness_choice *c, bool print, char **args, int *n)
{
	const struct __fixture_variant_metadata *v;
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	char name[512], short_name[512];
	int count = 0;

	for (f = __fixture_list; f; f = f->next) {
		for (v = f->variant ?: &harness_no_variant; v; v = v->next) {
			for (t = f->tests; t; t = t->next) {
				snprintf(name, sizeof(name), "%s.%s%s%s", f->name, v->name,
					 v->name[0] ? "." : "", t->name);
				snprintf(short_name, sizeof(short_name), "%s.%s", f->name, t->name);
				if (!harness_chosen(c, v->name, name, short_name))
					continue;
				count++;
				if (print)
					printf("%s\n", name);
				if (args) {
					args[(*n)++] = "-r";
					args[(*n)++] = strdup(name);
				}
			}
		}
	}
	return count;
}

static int harness_main(int argc, char **argv)
{
	struct harness_choice c = { .nr_match = 0 };
	char **args;
	int i, n = 1, chosen;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--list")) {
			c.list = true;
		} else if (!strcmp(argv[i], "--match") && i + 1 < argc &&
			   c.nr_match < sizeof(c.match) / sizeof(c.match[0])) {
			c.match[c.nr_match++] = argv[++i];
		} else if (!strcmp(argv[i], "--freezer") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "todo") || !strcmp(argv[i + 1], "classic"))) {
			c.freezer = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--list] [--match GLOB]... [--freezer todo|classic] [harness options: -h]\n",
				argv[0]);
			return KSFT_FAIL;
		}
	}
	chosen = harness_walk(&c, c.list, NULL, NULL);
	if (c.list)
		return chosen ? KSFT_PASS : KSFT_FAIL;
	if ((c.nr_match || c.freezer) && !chosen) {
		/* Not an error: the glob may name another program's tests. */
		printf("TAP version 13\n1..0 # SKIP no test matches\n");
		return KSFT_PASS;
	}
	/* argv[0], "-r NAME" per chosen test, the harness's options, NULL */
	args = calloc(1 + 2 * chosen + (argc - i) + 1, sizeof(*args));
	if (!args)
		return KSFT_FAIL;
	args[0] = argv[0];
	if (c.nr_match || c.freezer)
		harness_walk(&c, false, args, &n);
	while (i < argc)
		args[n++] = argv[i++];
	return test_harness_run(n, args);
}
#define HARNESS_MAIN						\
	int main(int argc, char **argv)				\
	{							\
		return harness_main(argc, argv);		\
	}

#endif /* HARNESS_MAIN_H */
