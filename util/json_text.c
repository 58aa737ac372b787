#include "json_text.h"

#include <stdlib.h>

#include "utf8.h"

json_t *rn_json_text(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *fixed;

	if (j)
		return j;
	fixed = rn_utf8_fix(s);
	j = json_string(fixed);
	free(fixed);
	return j;
}
