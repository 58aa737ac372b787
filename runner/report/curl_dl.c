#include "curl_dl.h"

#include <dlfcn.h>
#include <errno.h>

#include "internal.h"
#include "log.h"

static struct rn_curl_api api;
static int load_rc = 1; /* 1 = not tried yet */

const struct rn_curl_api *rn_curl(void)
{
	return &api;
}

/* Resolve one symbol into a function pointer slot (POSIX allows the object-to-function cast
 * through memcpy-free assignment of dlsym's result for function symbols). */
#define RESOLVE(field, symbol)                                                                     \
	do {                                                                                       \
		*(void **)(&api.field) = dlsym(lib, symbol);                                       \
		if (!api.field) {                                                                  \
			rn_error("libcurl: missing symbol '%s'", symbol);                          \
			return load_rc = -ENOENT;                                                  \
		}                                                                                  \
	} while (0)

int rn_curl_load(void)
{
	void *lib;

	if (load_rc <= 0)
		return load_rc;
	lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		rn_error("cannot load libcurl for the OTLP export: %s (install libcurl4)",
			 dlerror());
		return load_rc = -ENOENT;
	}
	RESOLVE(global_init, "curl_global_init");
	RESOLVE(global_cleanup, "curl_global_cleanup");
	RESOLVE(easy_init, "curl_easy_init");
	RESOLVE(easy_cleanup, "curl_easy_cleanup");
	RESOLVE(easy_setopt, "curl_easy_setopt");
	RESOLVE(easy_getinfo, "curl_easy_getinfo");
	RESOLVE(easy_perform, "curl_easy_perform");
	RESOLVE(easy_strerror, "curl_easy_strerror");
	RESOLVE(slist_append, "curl_slist_append");
	RESOLVE(slist_free_all, "curl_slist_free_all");
	RESOLVE(getdate, "curl_getdate");
	return load_rc = 0;
}
