/*
 * driver.c - the driver registry (driver.h).
 */
#include "driver.h"

#include <string.h>

#include "ptrace/drivers.h"

const struct rn_driver_ops *const rn_drivers[] = {
	&rn_ptrace_events_driver,
	&rn_ptrace_driver,
	NULL,
};

const struct rn_driver_ops *rn_driver_select(const struct rn_run_spec *spec)
{
	int i;

	for (i = 0; rn_drivers[i]; i++)
		if (rn_drivers[i]->accepts(spec))
			return rn_drivers[i];
	return NULL;
}

const struct rn_driver_ops *rn_driver_find(const char *name)
{
	int i;

	for (i = 0; rn_drivers[i]; i++)
		if (!strcmp(rn_drivers[i]->name, name))
			return rn_drivers[i];
	return NULL;
}
