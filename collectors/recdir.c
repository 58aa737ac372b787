#include "recdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"

int rn_recdir_create(const char *tag, char **out)
{
	const char *tmp = getenv("TMPDIR");
	struct rn_buf path;

	rn_buf_init(&path, 0);
	rn_buf_addf(&path, "%s/renacer-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (rn_buf_failed(&path) || !mkdtemp(path.buf)) {
		int err = rn_buf_failed(&path) ? ENOMEM : errno;

		rn_error("%s: cannot create record directory '%s': %s", tag, path.buf,
			 strerror(err));
		rn_buf_release(&path);
		return -err;
	}
	*out = rn_buf_detach(&path, NULL);
	return *out ? 0 : -ENOMEM;
}

void rn_recdir_remove(const char *dir)
{
	struct rn_buf path;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		rn_buf_init(&path, 0);
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			rn_buf_reset(&path);
			rn_buf_addf(&path, "%s/%s", dir, de->d_name);
			if (!rn_buf_failed(&path))
				unlink(path.buf);
		}
		rn_buf_release(&path);
		closedir(d);
	}
	rmdir(dir);
}
