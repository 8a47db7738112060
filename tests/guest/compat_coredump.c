// SPDX-License-Identifier: GPL-2.0
/*
 * Core dumps.  A process of a few threads with a large anonymous mapping
 * aborts and dumps core while the freeze starts.  The dumping thread runs
 * in do_coredump(), not asleep freezably: dump_emit() stops the dump when
 * dump_interrupted() sees task_sigpending(), which the classic freezer's
 * fake signal sets, so the classic freezer truncates the core and the
 * freeze does not wait for the dump.  The other threads wait freezably in
 * coredump_task_exit() and are frozen in place.  To a file (tmpfs) and to
 * a pipe (core_pattern "|helper", a reader slower than the dump): the
 * freeze succeeds, and the core is truncated with both freezers.
 *
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "compat_fixture.h"

#define CORE_FILE		"/tmp/compat.core"
#define CORE_THREADS		3
/* The pipe helper reads this much, then naps PIPE_READER_NAP_US. */
#define PIPE_READER_CHUNK	65536
#define PIPE_READER_NAP_US	2000
/* The dump to the pipe: its size and the pace of the reader make it last ~3 s. */
#define PIPE_CORE_MB		96

static void *core_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/*
 * The crashing child: CORE_THREADS threads, @mb MiB of anonymous memory
 * written, then abort().  It dumps core with RLIMIT_CORE unlimited.
 */
static __attribute__((noreturn)) void core_crasher(size_t mb)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	pthread_t t;
	size_t i, len = mb << 20;
	char *p;

	if (setrlimit(RLIMIT_CORE, &rl))
		_exit(2);
	for (i = 0; i < CORE_THREADS; i++)
		if (pthread_create(&t, NULL, core_thread, NULL))
			_exit(3);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(4);
	for (i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12) | 1;
	sh->ready[0] = 1;
	while (!sh->ready[1])
		usleep(1000);
	abort();
}

/*
 * The core_pattern pipe helper ("compat_coredump coredump-reader"): reads
 * the core from stdin, PIPE_READER_CHUNK bytes and then a nap at a time,
 * so that the dump waits for it in pipe_write(); writes PIPE_CORE_STARTED
 * after the first MiB and the byte count to PIPE_CORE_BYTES at the end.
 */
static int coredump_reader(void)
{
	static char buf[PIPE_READER_CHUNK];
	long long total = 0;
	char text[32];
	int started = 0, fd;
	ssize_t n;

	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
		if (!started && total >= (1 << 20)) {
			close(open(PIPE_CORE_STARTED, O_WRONLY | O_CREAT, 0644));
			started = 1;
		}
		usleep(PIPE_READER_NAP_US);
	}
	snprintf(text, sizeof(text), "%lld\n", total);
	/* Written whole, then renamed: the test reads it as soon as it exists. */
	fd = open(PIPE_CORE_BYTES ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		return 1;
	close(fd);
	return rename(PIPE_CORE_BYTES ".tmp", PIPE_CORE_BYTES) ? 1 : 0;
}

/* Size of @path, or -1. */
static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Set core_pattern to @pattern, saving the old one in the fixture. */
static int set_core_pattern(FIXTURE_DATA(compat) *self, const char *pattern)
{
	if (!self->saved_core_pattern[0]) {
		if (read_str(CORE_PATTERN, self->saved_core_pattern,
			     sizeof(self->saved_core_pattern)) <= 0)
			return -1;
		self->saved_core_pattern[strcspn(self->saved_core_pattern, "\n")] = 0;
	}
	return write_str(CORE_PATTERN, pattern);
}

/* Fork the crasher of @mb MiB; it aborts once told to (sh->ready[1]). */
static pid_t start_crasher(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
			   size_t mb)
{
	int tries;

	sh->ready[0] = sh->ready[1] = 0;
	self->child[0] = fork();
	if (self->child[0] == 0)
		core_crasher(mb);
	for (tries = 0; tries < 6000 && !sh->ready[0]; tries++)
		usleep(5000);
	return sh->ready[0] ? self->child[0] : -1;
}

/* /proc/<pid>/wchan into @buf; its length, or -1. */
static int proc_wchan(pid_t pid, char *buf, size_t size)
{
	char path[64];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	n = read_str(path, buf, size);
	return n > 0 ? n : -1;
}

/*
 * Log the state and wchan of every thread of @pid; how many are in one of
 * the @states.
 */
static int log_threads(struct __test_metadata *_metadata, pid_t pid, const char *when,
		       const char *states)
{
	char path[96], wchan[64];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		pid_t tid;
		char st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = atoi(de->d_name);
		st = proc_state(tid);
		if (proc_wchan(tid, wchan, sizeof(wchan)) < 0)
			strcpy(wchan, "?");
		TH_LOG("%s: thread %d state '%c' wchan %s", when, tid, st, wchan);
		n += st && strchr(states, st) != NULL;
	}
	closedir(dir);
	return n;
}

/* Reap the crasher; log how it ended; its status or -1. */
static int reap_crasher(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self, int ms)
{
	int status = reap_within(self->child[0], ms);

	if (status == -1)
		return -1;
	self->child[0] = 0;
	TH_LOG("crasher: %s %d%s", WIFSIGNALED(status) ? "signal" : "exit",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
	       WIFSIGNALED(status) && WCOREDUMP(status) ? ", core dumped" : "");
	return status;
}

/* The anonymous memory of the file test: enough, without running out. */
static size_t core_file_mb(void)
{
	long avail_kb = meminfo_kb("MemAvailable");
	size_t mb = 256;

	/* The mapping and its core, both in memory, and some left over. */
	if (avail_kb > 0 && (size_t)avail_kb * 35 / 100 / 1024 < mb)
		mb = avail_kb * 35 / 100 / 1024;
	return mb;
}

TEST_F_TIMEOUT(compat, core_dump_to_a_file_is_truncated_by_the_freeze, 90)
{
	long long at_freeze, final, full;
	size_t mb = core_file_mb();
	char path[64];
	int status, tries;
	pid_t pid;

	ASSERT_LT(32UL, mb) TH_LOG("too little memory for the test: %zu MiB", mb);
	full = (long long)mb << 20;
	pid = start_crasher(_metadata, self, mb);
	ASSERT_LT(0, pid) TH_LOG("the crasher did not get ready");
	snprintf(path, sizeof(path), "%s.%d", CORE_FILE, pid);
	unlink(path);
	ASSERT_EQ(0, set_core_pattern(self, CORE_FILE ".%p"));
	snprintf(self->core_file, sizeof(self->core_file), "%s", path);
	TH_LOG("crasher %d: %d threads, %zu MiB written", pid, CORE_THREADS + 1, mb);

	sh->ready[1] = 1;
	/* The dump is under way: the core has its first MiBs, far from all. */
	for (tries = 0; tries < 2000 && file_size(path) < (4 << 20); tries++)
		usleep(500);
	at_freeze = file_size(path);
	ASSERT_LE(4 << 20, at_freeze) TH_LOG("the dump did not start: core %lld bytes", at_freeze);
	/* The other threads wait for the dump in coredump_task_exit() (TASK_IDLE: I). */
	ASSERT_LE(CORE_THREADS, log_threads(_metadata, pid, "dumping", "DI"));
	ASSERT_GT(full / 4, at_freeze)
		TH_LOG("the dump went too fast to test: %lld of %lld bytes before the freeze",
		       at_freeze, full);

	EXPECT_EQ(0, freeze(_metadata));

	status = reap_crasher(_metadata, self, 60000);
	ASSERT_NE(-1, status) TH_LOG("the crasher did not end");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	final = file_size(path);
	TH_LOG("core: %lld bytes when the freeze began, %lld in the end, of at least %lld",
	       at_freeze, final, full);
	/* The classic freezer's fake signal stopped the dump at the freeze. */
	EXPECT_GT(full / 2, final) TH_LOG("the freeze did not interrupt the core dump");
}

TEST_F_TIMEOUT(compat, core_dump_to_a_pipe_is_truncated_by_the_freeze, 90)
{
	char exe[PATH_MAX], pattern[PATH_MAX + 64], buf[64];
	long long full = (long long)PIPE_CORE_MB << 20, bytes;
	int status, tries, waits = 0;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = 0;
	unlink(PIPE_CORE_STARTED);
	unlink(PIPE_CORE_BYTES);
	self->pipe_core = 1;
	snprintf(pattern, sizeof(pattern), "|%s coredump-reader", exe);
	pid = start_crasher(_metadata, self, PIPE_CORE_MB);
	ASSERT_LT(0, pid) TH_LOG("the crasher did not get ready");
	ASSERT_EQ(0, set_core_pattern(self, pattern));

	sh->ready[1] = 1;
	for (tries = 0; tries < 2000 && access(PIPE_CORE_STARTED, F_OK); tries++)
		usleep(5000);
	ASSERT_EQ(0, access(PIPE_CORE_STARTED, F_OK)) TH_LOG("the pipe helper did not start reading");
	/*
	 * The dumping thread (the one that aborted) waits for the slow
	 * reader.  Seen once, not asked again: on SMP it runs between its
	 * waits, each time the reader drains the pipe a little.
	 */
	for (tries = 0; tries < 400 && !waits; tries++) {
		waits = proc_state(pid) == 'S' && proc_stack_has(pid, "pipe_write");
		if (!waits)
			usleep(5000);
	}
	ASSERT_LE(CORE_THREADS, log_threads(_metadata, pid, "dumping", "DI"));
	ASSERT_TRUE(waits) TH_LOG("the dump does not wait for the pipe");

	EXPECT_EQ(0, freeze(_metadata));

	status = reap_crasher(_metadata, self, 60000);
	ASSERT_NE(-1, status) TH_LOG("the crasher did not end");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	for (tries = 0; tries < 2000 && read_str(PIPE_CORE_BYTES, buf, sizeof(buf)) <= 0; tries++)
		usleep(5000);
	ASSERT_LT(0, read_str(PIPE_CORE_BYTES, buf, sizeof(buf))) TH_LOG("the helper did not finish");
	bytes = atoll(buf);
	TH_LOG("core: the helper read %lld bytes, of at least %lld", bytes, full);
	EXPECT_GT(full / 2, bytes) TH_LOG("the freeze did not interrupt the core dump");
}

int main(int argc, char **argv)
{
	/* Run by the kernel as the core_pattern pipe helper. */
	if (argc > 1 && !strcmp(argv[1], "coredump-reader"))
		return coredump_reader();
	return compat_main(argc, argv);
}
