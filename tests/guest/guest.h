/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the guest test programs. */
#ifndef GUEST_H
#define GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns: the clock of the kernel's ktime_get_ns(). */
static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write @text to @path in one write(); 0 or -errno. */
static inline int write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

#endif /* GUEST_H */
