/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup v2 of our own, for guest tests and the bench: made in
 * /sys/fs/cgroup when that is cgroup2, else in cgroup2 mounted on a
 * directory of the caller's.  Include after guest.h.
 */
#ifndef GUEST_CGROUP2_H
#define GUEST_CGROUP2_H

#include <errno.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define CG2_MAGIC		0x63677270	/* CGROUP2_SUPER_MAGIC */

struct cgroup2 {
	char dir[192];	/* the cgroup; "" until made */
	char mnt[64];	/* where we mounted cgroup2; "" if we did not */
};

/*
 * Make cgroup @name, mounting cgroup2 on @mnt if /sys/fs/cgroup is not
 * cgroup2.  0, -ENODEV without cgroup2 (CONFIG_CGROUPS), or -errno.
 */
static inline int cg2_make(struct cgroup2 *cg, const char *mnt, const char *name)
{
	const char *root = "/sys/fs/cgroup";
	struct statfs st;

	cg->dir[0] = cg->mnt[0] = 0;
	if (statfs(root, &st) || st.f_type != CG2_MAGIC) {
		mkdir(mnt, 0755);
		if (mount("none", mnt, "cgroup2", 0, NULL))
			return -errno;
		snprintf(cg->mnt, sizeof(cg->mnt), "%s", mnt);
		root = mnt;
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s/%s", root, name);
	if (mkdir(cg->dir, 0755) && errno != EEXIST) {
		int err = -errno;

		cg->dir[0] = 0;
		return err;
	}
	return 0;
}

/* Write @val to the cgroup's @file; 0 or -errno. */
static inline int cg2_write(const struct cgroup2 *cg, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg->dir, file);
	return write_str(path, val);
}

/* Move @pid into the cgroup; 0 or -errno. */
static inline int cg2_add(const struct cgroup2 *cg, pid_t pid)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", pid);
	return cg2_write(cg, "cgroup.procs", buf);
}

/* Thaw the cgroup, remove it (its tasks must be gone) and unmount. */
static inline void cg2_remove(struct cgroup2 *cg)
{
	if (cg->dir[0]) {
		cg2_write(cg, "cgroup.freeze", "0");
		rmdir(cg->dir);
	}
	if (cg->mnt[0])
		umount2(cg->mnt, MNT_DETACH);
	cg->dir[0] = cg->mnt[0] = 0;
}

#endif /* GUEST_CGROUP2_H */
