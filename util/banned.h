/*
 * banned.h - force-included into every translation unit of renacer (git's banned.h).
 * Unbounded or locale-dependent functions are turned into compile errors.
 */
#ifndef RN_BANNED_H
#define RN_BANNED_H

/* Declare the real functions first so the macros below do not rewrite their prototypes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RN_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) RN_BANNED(strcpy)
#undef strcat
#define strcat(x, y) RN_BANNED(strcat)
#undef sprintf
#define sprintf(...) RN_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) RN_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) RN_BANNED(strtok)
#undef atoi
#define atoi(x) RN_BANNED(atoi)

#endif
