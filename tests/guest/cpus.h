/* SPDX-License-Identifier: GPL-2.0 */
/* The CPUs a guest test may use, and pinning to one (the SMP programs). */
#ifndef CPUS_H
#define CPUS_H

#include <errno.h>
#include <sched.h>

/* The CPUs this task may run on, in @cpu_of (at most @max); how many. */
static inline int online_cpus(int *cpu_of, int max)
{
	cpu_set_t online;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(online), &online))
		return 0;
	for (i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &online))
			cpu_of[n++] = i;
	return n;
}

/* Pin the calling task to @cpu; 0 or -errno. */
static inline int pin_cpu(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}

#endif
