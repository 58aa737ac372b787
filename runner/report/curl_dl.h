/*
 * curl_dl.h - libcurl, loaded when the first OTLP export needs it.
 *
 * libcurl pulls about thirty shared libraries (TLS, Kerberos, LDAP, HTTP/2 ...) into every
 * process that links it, which costs ~15 ms at each start: too much for `renacer validate` in a
 * pre-commit hook, which never sends anything. The OTLP exporter therefore calls libcurl
 * through this table, filled by dlopen("libcurl.so.4") on first use. Include this header
 * instead of <curl/curl.h>: the curl_* names below become calls through the table.
 *
 * Not thread safe (the runner is single threaded). The library stays loaded until exit.
 */
#ifndef RN_CURL_DL_H
#define RN_CURL_DL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/* The libcurl functions renacer uses, as pointers (signatures of curl/curl.h). */
struct rn_curl_api {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *curl);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
	time_t (*getdate)(const char *p, const time_t *unused);
};

#define curl_global_init(...) (rn_curl()->global_init(__VA_ARGS__))
#define curl_global_cleanup() (rn_curl()->global_cleanup())
#define curl_easy_init() (rn_curl()->easy_init())
#define curl_easy_cleanup(...) (rn_curl()->easy_cleanup(__VA_ARGS__))
#undef curl_easy_setopt
#define curl_easy_setopt(...) (rn_curl()->easy_setopt(__VA_ARGS__))
#undef curl_easy_getinfo
#define curl_easy_getinfo(...) (rn_curl()->easy_getinfo(__VA_ARGS__))
#define curl_easy_perform(...) (rn_curl()->easy_perform(__VA_ARGS__))
#define curl_easy_strerror(...) (rn_curl()->easy_strerror(__VA_ARGS__))
#define curl_slist_append(...) (rn_curl()->slist_append(__VA_ARGS__))
#define curl_slist_free_all(...) (rn_curl()->slist_free_all(__VA_ARGS__))
#define curl_getdate(...) (rn_curl()->getdate(__VA_ARGS__))

#endif
